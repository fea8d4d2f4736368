import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../packages/cli/src/program.js';
import { Account } from 'happy-session/node';
import type { Credentials } from 'happy-session/node';
import type { FoldedCall, FoldedNode, SessionMessage } from 'happy-session';
import { MAIN, ScriptedTerminal, TSX } from './helpers.js';

/** A directory holding a `happy-session` executable that runs the CLI from source; `remove()` deletes it. */
export function happySessionBin(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'happy-run-bin-'));
  writeFileSync(join(dir, 'happy-session'), `#!/bin/sh\nexec "${TSX}" "${MAIN}" "$@"\n`);
  chmodSync(join(dir, 'happy-session'), 0o755);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What an in-process `happy-session run` did. */
export interface RunResult {
  readonly code: number;
  /** The command's stdout and stderr, as `run` passed them through. */
  readonly out: string;
  readonly err: string;
  /** `run`'s own stderr lines. */
  readonly lines: readonly string[];
  readonly sessionId: string;
}

/**
 * `happy-session run <argv>` in process with `env`, the command's output captured; `onError` sees
 * each of `run`'s own stderr lines as it is printed (the session id comes first).
 */
export async function runInProcess(
  argv: readonly string[],
  env: Record<string, string>,
  onError: (line: string) => void = () => undefined,
): Promise<RunResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const lines: string[] = [];
  const code = await runCli(['run', ...argv], {
    print: () => undefined,
    printError: (line) => {
      lines.push(line);
      onError(line);
    },
    terminal: () => new ScriptedTerminal(),
    interrupts: () => new AbortController().signal,
    env,
    stdout,
    stderr,
  });
  return { code, out, err, lines, sessionId: sessionIdIn(lines) };
}

/** The session id `run` printed on stderr. */
export function sessionIdIn(lines: readonly string[]): string {
  const id = lines.map((l) => /^happy-session run: session (\S+)$/.exec(l)?.[1]).find(Boolean);
  if (!id) throw new Error(`no session id in ${JSON.stringify(lines)}`);
  return id;
}

/** The stored stream of a session, decrypted as the app reads it. */
export async function storedMessages(
  server: string,
  credentials: Credentials,
  sessionId: string,
): Promise<SessionMessage[]> {
  const account = await Account.open({ server, credentials });
  try {
    const session = await account.session(sessionId);
    const messages = await session.reader.messages();
    await session.close();
    return messages;
  } finally {
    await account.close();
  }
}

/** The text written inside a folded call, joined. */
export function textsOf(call: FoldedCall): string {
  return call.children
    .map((c) => (c.kind === 'message' && c.message.type === 'text' ? c.message.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** The calls among folded nodes. */
export function callsOf(children: readonly FoldedNode[]): FoldedCall[] {
  return children.filter((c): c is FoldedCall => c.kind === 'call');
}
