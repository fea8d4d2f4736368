import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN, ROOT, TSX, permissionAgent, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

/**
 * `watch` in a real terminal: tmux gives it a pty (raw mode, a size, escape sequences), the test
 * types with `send-keys` and reads the screen with `capture-pane`. Needs the tmux package.
 */
const SERVER = `happy-session-test-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', SERVER, ...args], { encoding: 'utf8' });

/** The visible screen of the pane. */
const screen = (): string => tmux('capture-pane', '-p', '-t', 'watch');

/** Waits until the screen shows `text` (reading it every 100 ms, up to 300 times) and returns it. */
async function shows(text: string): Promise<string> {
  let last = '';
  for (let i = 0; i < 300; i += 1) {
    last = screen();
    if (last.includes(text)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the screen never showed "${text}"; it shows:\n${last}`);
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

let env: RelayHome;
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no server left: nothing to clean
  }
  await env.close();
});

describe('happy-session watch in a terminal (tmux)', () => {
  it('draws the turn and the prompt, answers with a number key, and quits with q and exit code 0', async () => {
    const agent = await permissionAgent(env.relay, env.credentials);
    const command = [
      `cd ${quote(ROOT)} &&`,
      `HAPPY_HOME_DIR=${quote(env.home)}`,
      quote(TSX),
      quote(MAIN),
      'watch',
      agent.session.id,
      '--server',
      env.relay.url,
      '; echo "exit=$?"; sleep 600',
    ].join(' ');
    tmux('new-session', '-d', '-s', 'watch', '-x', '120', '-y', '40', command);

    const prompt = await shows('Permission requested: bash');
    expect(prompt).toContain(`happy-session watch · Clean the build · ${agent.session.id}`);
    expect(prompt).toMatch(/^turn 1 \(open\)$/m);
    expect(prompt).toContain('  ? bash: Run `rm -rf build` (waiting for permission)');
    expect(prompt).toContain('  1) Allow once   2) Allow for session   3) Deny   4) Always deny');

    tmux('send-keys', '-t', 'watch', '2');
    expect(await agent.response).toMatchObject({ type: 'permission-response', optionId: 'allow-session' });
    expect(await agent.rpc).toEqual({ callId: agent.call.callId, optionId: 'allow-session' });
    const answered = await shows('permission RPC delivered');
    expect(answered).toContain('→ Allow for session (allow-always)');
    expect(answered).not.toContain('Permission requested');

    agent.call.end();
    agent.turn.end('completed');
    await shows('turn 1 (completed)');

    tmux('send-keys', '-t', 'watch', 'q');
    await shows('exit=0');
    await agent.session.close();
  });
});
