import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom } from 'rxjs';
import { runCli } from '../../packages/cli/src/program.js';
import type { Terminal } from '../../packages/cli/src/terminal.js';
import { PermissionGate, DEFAULT_PERMISSION_OPTIONS } from 'happy-session/permissions';
import type { PermissionResponseMessage } from 'happy-session/protocol';
import type { Relay } from 'happy-session-relay';
import { connect, writeAgentKey } from 'happy-session/node';
import type { Credentials, Session } from 'happy-session/node';
import { relayWithAccount, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

/** The CLI entry point and the tsx that runs it, for tests that start the real process. */
export const MAIN = fileURLToPath(new URL('../../packages/cli/src/main.ts', import.meta.url));
export const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What `runCli` printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the CLI in process with captured output; Ctrl-C is `abort` on `interrupt`. */
export async function cli(
  argv: string[],
  options: {
    env?: Record<string, string>;
    terminal?: Terminal;
    interrupt?: AbortController;
    /** Sees each stdout line as it is printed. */
    onLine?: (line: string) => void;
  } = {},
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    print: (l) => {
      out.push(l);
      options.onLine?.(l);
    },
    printError: (l) => err.push(l),
    terminal: () => options.terminal ?? new ScriptedTerminal(),
    interrupts: () => (options.interrupt ?? new AbortController()).signal,
    env: options.env ?? {},
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Starts the CLI as a child process (the way a user runs it) with output collected. */
export function spawnCli(args: string[], env: Record<string, string> = {}) {
  // Node with tsx's loader, not the tsx command: tsx relays a signal to its child and gives up
  // (exit 128 + signal) unless the child acknowledges it within 30 ms, a race on a loaded machine.
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    out: () => out,
    err: () => err,
    /** Resolves with stdout once it contains `text`; rejects if the process exits first. */
    waitFor: (text: string) =>
      new Promise<string>((resolve, reject) => {
        const check = (): void => {
          if (out.includes(text)) {
            child.stdout.off('data', check);
            resolve(out);
          }
        };
        child.stdout.on('data', check);
        void exited.then((code) => reject(new Error(`exited with ${code} before "${text}": ${err}`)));
        check();
      }),
  };
}

/** A relay, a fresh account on it, and a Happy home directory whose agent.key holds that account. */
export interface RelayHome extends RelayAccount {
  readonly home: string;
  close(): Promise<void>;
}

export async function relayHome(): Promise<RelayHome> {
  const account = await relayWithAccount();
  const dir = tempDir('happy-cli-');
  writeAgentKey(dir.path, { secret: account.masterSecret, token: account.token });
  return {
    ...account,
    home: dir.path,
    close: async () => {
      await account.relay.close();
      dir.remove();
    },
  };
}

/**
 * An agent that asks for permission with the bare protocol, no gate: a turn, a `bash` call, a
 * `permission-request` appended with `writer.append`, then it waits for the user's
 * `permission-response` in `userMessages$`. It also registers the `permission` RPC to see exactly
 * what arrives there.
 */
export async function permissionAgent(relay: Relay, credentials: Credentials) {
  const session: Session = await connect({ server: relay.url, credentials, title: 'Clean the build' });
  let rpcParams!: (params: unknown) => void;
  const rpc = new Promise<unknown>((resolve) => (rpcParams = resolve));
  session.rpc.register('permission', (params) => {
    rpcParams(params);
    return { status: 'received' };
  });
  const turn = session.turn();
  turn.text('The build directory is stale; deleting it.');
  const call = turn.toolCall({
    toolName: 'bash',
    title: 'Run `rm -rf build`',
    args: { command: 'rm -rf build' },
    kind: 'execute',
  });
  const response = firstValueFrom(
    session.userMessages$.pipe(
      filter(
        (m): m is PermissionResponseMessage => m.type === 'permission-response' && m.callId === call.callId,
      ),
    ),
    // Undefined when the session closes before any answer.
    { defaultValue: undefined },
  );
  const { messageId: requestId } = await session.writer.append({
    role: 'agent',
    type: 'permission-request',
    turn: turn.id,
    callId: call.callId,
    toolName: 'bash',
    title: 'Run `rm -rf build`',
    args: { command: 'rm -rf build' },
    options: [...DEFAULT_PERMISSION_OPTIONS],
  });
  return { session, turn, call, requestId, response, rpc };
}

/** A terminal a test drives: collects what is written, types keys on demand. */
export class ScriptedTerminal implements Terminal {
  readonly isTTY = true;
  readonly rows = 40;
  readonly columns = 120;
  private written = '';
  private keyListeners = new Set<(keys: string) => void>();
  private waiters: Array<{ text: string | RegExp; resolve: (screen: string) => void }> = [];

  write(text: string): void {
    this.written += text;
    const screen = this.screen;
    this.waiters = this.waiters.filter((w) => {
      if (!matches(screen, w.text)) return true;
      w.resolve(screen);
      return false;
    });
  }

  /** What is on screen now: everything after the last clear. */
  get screen(): string {
    const clear = this.written.lastIndexOf('\x1b[2J');
    return clear < 0 ? this.written : this.written.slice(clear + 4);
  }

  /** Resolves with the screen once it shows `text`. */
  shows(text: string | RegExp): Promise<string> {
    if (matches(this.screen, text)) return Promise.resolve(this.screen);
    return new Promise((resolve) => this.waiters.push({ text, resolve }));
  }

  type(keys: string): void {
    for (const listener of this.keyListeners) listener(keys);
  }

  onKeys(listener: (keys: string) => void): () => void {
    this.keyListeners.add(listener);
    return () => this.keyListeners.delete(listener);
  }

  onResize(): () => void {
    return () => undefined;
  }
}

/**
 * Puts a gate in `bypassPermissions` mode on the session's writer, so the example agent's gated
 * call runs without asking (for tests about something else than permissions).
 */
export async function bypassGate(session: Session): Promise<PermissionGate> {
  return PermissionGate.create({ writer: session.writer, mode: 'bypassPermissions' });
}

function matches(screen: string, text: string | RegExp): boolean {
  return typeof text === 'string' ? screen.includes(text) : text.test(screen);
}
