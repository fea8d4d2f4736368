import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import { until } from '../helpers/until.js';
import { ROOT, cli, relayHome, spawnCli } from './helpers.js';
import type { RelayHome } from './helpers.js';
import { happySessionBin, storedMessages } from './runHelpers.js';

// `happy-session run --ask --preview`, end to end as a user runs it: the `happy-session`
// executable started in a working directory, against the embedded relay; real bubblewrap makes
// the preview; the person reads and answers with `happy-session answer`.
let env: RelayHome;
let bin: { dir: string; remove: () => void };
let work: string;

beforeAll(() => {
  bin = happySessionBin();
});
afterAll(() => bin.remove());
beforeEach(async () => {
  env = await relayHome();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'happy-run-preview-')));
  writeFileSync(join(work, 'notes.txt'), 'one\ntwo\n');
});
afterEach(async () => {
  await env.close();
  rmSync(work, { recursive: true, force: true });
});

const homeEnv = (): Record<string, string> => ({ HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url });

/** `happy-session run <args>` as a process in the working directory, its output collected. */
function runInWork(args: string[]) {
  const child = spawn(join(bin.dir, 'happy-session'), ['run', ...args], {
    cwd: work,
    // tsx reads the repository's tsconfig (its paths map the packages to their sources) from any directory.
    env: {
      ...process.env,
      ...homeEnv(),
      GITHUB_TOKEN: 'token-of-the-host',
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { exited, out: () => out, err: () => err };
}

/** `happy-session answer <args>` as the person runs it: the executable, its output collected. */
async function answerProcess(args: string[]) {
  const child = spawnCli(['answer', ...args], homeEnv());
  const code = await child.exited;
  return { code, out: child.out(), err: child.err() };
}

/** The preview lines of a listing of one request: between its title line and its `answer with:` line. */
function listedPreview(listing: string): string[] {
  const lines = listing.split('\n');
  expect(lines.at(-1)).toMatch(/^ {2}answer with: /);
  return lines.slice(1, -1);
}

/** The session id `run` printed, then its one pending request as `answer --json` lists it. */
async function pendingOf(run: ReturnType<typeof runInWork>) {
  const sessionId = await until(() => /happy-session run: session (\S+)/.exec(run.err())?.[1], {
    timeoutMs: 60_000,
    what: () => `the session id in ${run.err()}`,
  });
  const request = await until(
    async () => {
      const listed = await cli(['answer', sessionId, '--json'], { env: homeEnv() });
      return (JSON.parse(listed.out || '[]') as PermissionRequestMessage[])[0];
    },
    { timeoutMs: 60_000, what: 'the pending request' },
  );
  return { sessionId, request };
}

const COMMAND = [
  '--ask',
  '--preview',
  '--',
  'sh',
  '-c',
  `printf 'three\\n' >> notes.txt; printf 'made in the preview\\n' > made.txt; echo did-it; cat "$HAPPY_HOME_DIR/agent.key" 2>/dev/null; echo "token=$GITHUB_TOKEN"`,
];

describe('happy-session run --ask --preview', () => {
  it('shows the preview where the person answers and on stderr; nothing lands before; allow lands exactly the previewed bytes', async () => {
    const run = runInWork(COMMAND);
    const { sessionId, request } = await pendingOf(run);
    expect(request.preview).toMatchObject({
      applicable: true,
      exitCode: 0,
      network: [],
      outputTail: 'did-it\ntoken=\n',
      files: [
        { path: 'made.txt', change: 'created', size: 20 },
        { path: 'notes.txt', change: 'changed', size: 14, diff: '@@ line 3 @@\n+three' },
      ],
    });
    // The preview read neither the Happy home's key nor the host's token.
    const key = readFileSync(join(env.home, 'agent.key'), 'utf8');
    expect(request.preview!.outputTail).not.toContain(key.trim().slice(0, 16));
    const listed = await cli(['answer', sessionId], { env: homeEnv() });
    expect(listed.out).toContain('    created made.txt (20 B)');
    expect(listed.out).toContain('    changed notes.txt (14 B)');
    await until(() => run.err().includes('happy-session run:     changed notes.txt (14 B)'), {
      what: () => `the preview on run's stderr: ${run.err()}`,
    });
    // Nothing landed while the request waits.
    expect(readdirSync(work).sort()).toEqual(['notes.txt']);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');

    // Answered by id, the request's preview is shown again under the confirmation: the listing's lines.
    const answered = await answerProcess([sessionId, request.callId, 'allow']);
    expect(answered.code).toBe(0);
    const [confirmation, ...shown] = answered.out.trimEnd().split('\n');
    expect(confirmation).toMatch(
      /^Allowed once: .* \(call \S+\)\. Recorded in the stream \(seq \d+\); the agent took it\.$/,
    );
    expect(confirmation).toContain(`(call ${request.callId})`);
    expect(shown).toEqual(listedPreview(listed.out));
    expect(shown).toContain('    created made.txt (20 B)');
    expect(shown).toContain('  On allow, exactly these file changes land.');
    expect(await run.exited).toBe(0);
    expect(readdirSync(work).sort()).toEqual(['made.txt', 'notes.txt']);
    expect(readFileSync(join(work, 'made.txt'), 'utf8')).toBe('made in the preview\n');
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    // The command did not run a second time: its output is the preview's, once.
    expect(run.out()).toBe('did-it\ntoken=\n');
    expect(run.err()).toContain(
      'happy-session run: Applied the previewed change: 2 file(s), exactly as previewed.',
    );
    const messages = await storedMessages(env.relay.url, env.credentials, sessionId);
    expect(messages).toContainEqual(
      expect.objectContaining({
        type: 'service',
        text: 'Applied the previewed change: 2 file(s), exactly as previewed.',
      }),
    );
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
  }, 120_000);

  it('deny lands nothing and exits 77', async () => {
    const run = runInWork(COMMAND);
    const { sessionId, request } = await pendingOf(run);
    expect(request.preview?.files.map((f) => f.path)).toEqual(['made.txt', 'notes.txt']);
    // --json: one line per answer, with the request's preview as the listing's JSON has it.
    const answered = await answerProcess([sessionId, request.callId, 'deny', '--json']);
    expect(answered.code).toBe(0);
    const lines = answered.out.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      callId: request.callId,
      toolName: request.toolName,
      title: request.title,
      optionId: request.options.find((o) => o.kind === 'reject-once')!.id,
      kind: 'reject-once',
      recorded: { seq: expect.any(Number) },
      rpc: expect.any(String),
      preview: request.preview,
    });
    expect(await run.exited).toBe(77);
    expect(readdirSync(work).sort()).toEqual(['notes.txt']);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(run.out()).toBe('');
  }, 120_000);

  it('answer by id shows a long preview cut where the listing cuts it', async () => {
    const run = runInWork(['--ask', '--preview', '--', 'seq', '1', '300']);
    const { sessionId, request } = await pendingOf(run);
    const listed = await cli(['answer', sessionId], { env: homeEnv() });
    const preview = listedPreview(listed.out);
    expect(preview).toHaveLength(80);
    expect(preview.at(-1)).toMatch(/^ {2}… \d+ more lines$/);
    const answered = await answerProcess([sessionId, request.callId, 'deny']);
    expect(answered.code).toBe(0);
    const [confirmation, ...shown] = answered.out.trimEnd().split('\n');
    expect(confirmation).toMatch(
      new RegExp(`^Denied: .* \\(call ${request.callId}\\)\\. Recorded in the stream`),
    );
    expect(shown).toEqual(preview);
    expect(await run.exited).toBe(77);
  }, 120_000);
});
