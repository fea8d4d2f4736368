import type { PermissionOption } from 'happy-session';
import type { Print } from '../output.js';
import type { Terminal } from '../terminal.js';
import { oneLine } from '../transcript.js';
import type { PermissionScript } from './scriptedUser.js';

const CTRL_C = '\x03';

/**
 * A {@link PermissionScript} that asks the person at the keyboard (`demo --interactive`): prints
 * the request with numbered options and answers with the option whose number is typed. Ctrl-C
 * calls `onInterrupt` and leaves the request unanswered; so does the request ending elsewhere.
 */
export function keyboardScript(terminal: Terminal, print: Print, onInterrupt: () => void): PermissionScript {
  return (request, signal) =>
    new Promise<PermissionOption | undefined>((resolve) => {
      print('');
      print(`Permission requested: ${request.toolName} — ${oneLine(request.title)}`);
      if (request.args && Object.keys(request.args).length > 0) {
        print(`  args: ${oneLine(JSON.stringify(request.args))}`);
      }
      print('  ' + request.options.map((o, i) => `${i + 1}) ${o.label}`).join('   '));
      print(`Press 1-${Math.min(request.options.length, 9)} (Ctrl-C stops the demo)`);
      const finish = (option: PermissionOption | undefined): void => {
        stop();
        signal.removeEventListener('abort', onAbort);
        resolve(option);
      };
      const onAbort = (): void => finish(undefined);
      const stop = terminal.onKeys((keys) => {
        for (const key of keys) {
          if (key === CTRL_C) {
            finish(undefined);
            onInterrupt();
            return;
          }
          const option = key >= '1' && key <= '9' ? request.options[Number(key) - 1] : undefined;
          if (option) {
            print(`→ ${option.label}`);
            return finish(option);
          }
        }
      });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
}
