import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import type { SessionMessage } from 'happy-session';
import { tempDir } from '../transport/helpers.js';
import { MAIN, ROOT, TSX } from './helpers.js';
import { until } from '../helpers/until.js';

/**
 * The whole loop from a fresh HAPPY_HOME_DIR with the command line only, as docs/cli.md tells it:
 * `keygen`, `serve`, the custom agent example, `send`, `answer`, `stop`, `attach`; the stream is
 * read back with `watch --once --json`. Every step is a real process.
 */
const run = promisify(execFile);
const home = tempDir('happy-loop-');
const children: ChildProcessWithoutNullStreams[] = [];
let env: Record<string, string>;

/** Runs `happy-session <args>` to its end. */
async function hs(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(TSX, [MAIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

/** Starts a long-running process and resolves once its stdout matches `ready`. */
function start(args: string[], ready: RegExp): Promise<RegExpExecArray> {
  const child = spawn(TSX, args, { cwd: ROOT, env: { ...process.env, ...env } });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`)));
  });
}

/** The stream as stored now, read back with the command line. */
async function stream(sessionId: string): Promise<SessionMessage[]> {
  const watched = await hs('watch', sessionId, '--once', '--json');
  expect(watched.code).toBe(0);
  return watched.out
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { message: SessionMessage }).message);
}

/** Reads the stream until `check` holds for it (the agent works at its own pace). */
function untilStream(
  sessionId: string,
  check: (messages: SessionMessage[]) => boolean,
): Promise<SessionMessage[]> {
  return until(
    async () => {
      const messages = await stream(sessionId);
      return check(messages) && messages;
    },
    {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: async () => `the stream of ${sessionId} (${JSON.stringify(await stream(sessionId))})`,
    },
  );
}

const texts = (messages: SessionMessage[]): string[] =>
  messages.flatMap((m) => (m.type === 'text' ? [`${m.role}: ${m.text}`] : []));

beforeAll(() => {
  env = { HAPPY_HOME_DIR: home.path, HAPPY_SERVER_URL: '' };
});
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  home.remove();
});

describe('the loop from a terminal, with commands only', () => {
  it('keygen, serve, an agent, send, answer, stop, attach, and the stream read back', async () => {
    // A new account key: no server is named, so the relay makes the account on first use.
    const keygen = await hs('keygen');
    expect(keygen.code).toBe(0);
    expect(keygen.out).toContain(`Wrote ${join(home.path, 'agent.key')} (mode 0600)`);

    const [, url] = await start([MAIN, 'serve', '--port', '0'], /listening on (http:\/\/\S+)/);
    env.HAPPY_SERVER_URL = url!;
    const [, sessionId] = await start(['examples/custom-agent/index.ts', '--no-sandbox'], /session (\w+):/);

    const listed = await hs('sessions');
    expect(listed.out).toMatch(new RegExp(`^${sessionId}\\s+yes\\s+.*Custom agent example`, 'm'));

    // A prompt, and the agent's answer.
    expect((await hs('send', sessionId!, 'hello')).code).toBe(0);
    await untilStream(sessionId!, (m) => texts(m).some((t) => t.startsWith('agent: I know')));

    // Two gated calls side by side: both wait, `answer --all` allows both, each runs once.
    expect((await hs('send', sessionId!, 'run each echo one; echo two')).code).toBe(0);
    await untilStream(sessionId!, (m) => m.filter((x) => x.type === 'permission-request').length === 2);
    const pending = await hs('answer', sessionId!, '--json');
    expect(JSON.parse(pending.out).map((r: { title: string }) => r.title)).toEqual([
      'Run `echo one`',
      'Run `echo two`',
    ]);
    const answered = await hs('answer', sessionId!, '--all', 'allow', '--json');
    expect(answered.code).toBe(0);
    expect(
      answered.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).optionId),
    ).toEqual(['allow-once', 'allow-once']);
    const ran = await untilStream(sessionId!, (m) => texts(m).includes('agent: Run `echo two`: done.'));
    expect(texts(ran).filter((t) => t.includes('one\n'))).toHaveLength(1);

    // A long call, allowed with its call id, then stopped: the turn ends cancelled.
    expect((await hs('send', sessionId!, 'run sleep 60')).code).toBe(0);
    const asked = await untilStream(sessionId!, (m) =>
      m.some((x) => x.type === 'permission-request' && x.title === 'Run `sleep 60`'),
    );
    const request = asked.find(
      (x): x is PermissionRequestMessage => x.type === 'permission-request' && x.title === 'Run `sleep 60`',
    )!;
    const one = await hs('answer', sessionId!, request.callId, 'allow');
    expect(one.code).toBe(0);
    expect(one.out).toMatch(
      /^Allowed once: Run `sleep 60` \(call \w+\)\. Recorded in the stream \(seq \d+\)/,
    );
    await untilStream(sessionId!, (m) =>
      m.some((x) => x.type === 'permission-response' && x.callId === request.callId),
    );
    const stopped = await hs('stop', sessionId!, '--json');
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.out)).toEqual({ session: sessionId, aborted: 1 });
    const ended = await untilStream(sessionId!, (m) => m.filter((x) => x.type === 'turn-end').length === 3);
    expect(ended.filter((x) => x.type === 'turn-end').map((x) => (x as { status: string }).status)).toEqual([
      'completed',
      'completed',
      'cancelled',
    ]);

    // Files: an agent-side turn, and a prompt with a file; text is typed by its extension.
    const notes = join(home.path, 'notes.md');
    writeFileSync(notes, '# Notes\n\nShip it.\n');
    const attached = await hs('attach', sessionId!, notes, '--json');
    expect(attached.code).toBe(0);
    expect(attached.err).toContain('notes.md: done, text/markdown');
    const sent = await hs('send', sessionId!, 'see the notes', '--file', notes);
    expect(sent.code).toBe(0);

    const final = await untilStream(sessionId!, (m) =>
      texts(m).some((t) => t.includes('You said: "see the notes"')),
    );
    const files = final.filter((x) => x.type === 'file');
    expect(files.map((f) => [f.role, f.type === 'file' && f.name, f.type === 'file' && f.mimeType])).toEqual([
      ['agent', 'notes.md', 'text/markdown'],
      ['user', 'notes.md', 'text/markdown'],
    ]);
    expect(texts(final).filter((t) => t.startsWith('user: '))).toEqual([
      'user: hello',
      'user: run each echo one; echo two',
      'user: run sleep 60',
      'user: see the notes',
    ]);

    // Nothing the commands did ended the agent's session.
    expect((await hs('sessions')).out).toMatch(new RegExp(`^${sessionId}\\s+yes`, 'm'));
  }, 600_000);
});
