import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { tempDir } from '../transport/helpers.js';
import { cli, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';
import { happySessionBin, runInProcess, storedMessages } from './runHelpers.js';

/**
 * The CLI's manners in the first hour (issue 27): it says what it waits for and how to answer,
 * says at once when no agent listens, leaves nothing behind when it fails, and reports in words.
 */
let env: RelayHome;
let bin: { dir: string; remove: () => void };
const work = tempDir('happy-first-hour-');

beforeAll(() => {
  bin = happySessionBin();
});
afterAll(() => {
  bin.remove();
  work.remove();
});
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  await env.close();
});

const cliEnv = (): Record<string, string> => ({ HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url });
const hs = (...argv: string[]) => cli(argv, { env: cliEnv() });

/** A session whose agent has ended it (exited cleanly): the server says it is not active. */
async function exitedAgent(title: string): Promise<Session> {
  const session = await connect({ server: env.relay.url, credentials: env.credentials, title });
  const turn = session.turn();
  turn.text('done for today');
  turn.end();
  await session.close({ archive: false });
  return session;
}

describe('run --ask', () => {
  it('says it waits and gives the exact command that answers; the answer it names works, in words', async () => {
    const marker = join(work.path, 'asked');
    let answering: Promise<Awaited<ReturnType<typeof hs>>> | undefined;
    const result = await runInProcess(
      ['--ask', '--', 'touch', marker],
      { ...cliEnv(), PATH: `${bin.dir}:${process.env.PATH ?? ''}` },
      (line) => {
        const command = /`happy-session (answer \S+ \S+) allow`/.exec(line)?.[1];
        if (command) answering = hs(...command.split(' '), 'deny');
      },
    );
    const waiting = result.lines.find((l) => l.includes('waiting for permission'));
    expect(waiting).toMatch(
      new RegExp(
        `^happy-session run: waiting for permission to run \`touch ${marker}\`: allow or deny it in the Happy app or the viewer, or with \`happy-session answer ${result.sessionId} \\w+ allow\` \\(or deny\\)$`,
      ),
    );
    expect(result.lines).toContain(`happy-session run: denied: touch ${marker}`);
    expect(result.code).toBe(77);
    const answered = await answering!;
    expect(answered.code).toBe(0);
    // In words, and no RPC error although `run` takes answers from the stream only.
    expect(answered.out).toMatch(
      new RegExp(
        `^Denied: touch ${marker} \\(call \\w+\\)\\. Recorded in the stream \\(seq \\d+\\); the agent (took it|reads it from there \\(it takes no answer by RPC\\))\\.$`,
      ),
    );
    expect(answered.out).not.toMatch(/Method not found|error/i);
  }, 60_000);
});

describe('send and stop to an agent that is not connected', () => {
  it('send stores the prompt and says nobody reads it yet; --json says agentConnected: false', async () => {
    const session = await exitedAgent('Gone home');
    const sent = await hs('send', session.id, 'are you there?');
    expect(sent.code).toBe(0);
    expect(sent.out.split('\n')).toEqual([
      expect.stringMatching(/^Sent to Gone home \(seq \d+\)\.$/),
      'The agent is not connected: nobody reads this until an agent opens the session again (`happy-session sessions` shows which are active).',
    ]);
    const json = await hs('send', session.id, 'still?', '--json');
    expect(JSON.parse(json.out)).toMatchObject({ session: session.id, agentConnected: false });
  });

  it('stop fails at once with cli.agent_unreachable "not connected", without waiting for the RPC', async () => {
    const session = await exitedAgent('Gone home');
    const stopped = await hs('stop', session.id);
    expect(stopped.code).toBe(1);
    expect(stopped.err).toContain(`The agent of session ${session.id} is not connected.`);
    expect(stopped.err).toContain('code: cli.agent_unreachable');
  });

  it('positive control: a connected agent hears send and takes stop', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Here' });
    try {
      const sent = await hs('send', session.id, 'hello');
      expect(sent.out).toMatch(/^Sent to Here \(seq \d+\)\.$/);
      const stopped = await hs('stop', session.id);
      expect(stopped.code).toBe(0);
      expect(stopped.out).toBe('The agent had no turn running.');
    } finally {
      await session.close({ archive: false });
    }
  });
});

describe('attach that fails', () => {
  it('appends nothing for a missing file or one that is too large; a good one still makes its turn', async () => {
    const session = await exitedAgent('Files');
    const before = await storedMessages(env.relay.url, env.credentials, session.id);
    const missing = await hs('attach', session.id, join(work.path, 'nope.md'));
    expect(missing.code).toBe(1);
    const large = join(work.path, 'large.bin');
    writeFileSync(large, Buffer.alloc(11 * 1024 * 1024, 7));
    const good = join(work.path, 'good.md');
    writeFileSync(good, '# Notes\n');
    const tooLarge = await hs('attach', session.id, good, large);
    expect(tooLarge.code).toBe(1);
    expect(await storedMessages(env.relay.url, env.credentials, session.id)).toEqual(before);

    const attached = await hs('attach', session.id, good);
    expect(attached.code).toBe(0);
    const after = await storedMessages(env.relay.url, env.credentials, session.id);
    expect(after.slice(before.length).map((m) => m.type)).toEqual(['turn-start', 'file', 'turn-end']);
  }, 60_000);
});

describe('watch', () => {
  it('indents every line of a multi-line step error under its step; a stopped tool shows ⊘ cancelled', async () => {
    const session = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: 'Steps',
      permissions: { mode: 'bypassPermissions' },
    });
    try {
      const turn = session.turn();
      await turn
        .step('Build', async (build) => {
          await build.step('Compile', () => {
            throw new Error('tsc failed:\nsrc/a.ts(1,1): error TS1\nsrc/b.ts(2,2): error TS2');
          });
        })
        .catch(() => undefined);
      const tool = turn.toolCall({
        toolName: 'Bash',
        title: 'Run `sleep 60`',
        args: { command: 'sleep 60' },
      });
      const running = tool.run(
        (_args, { signal }) =>
          new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(new Error('The operation was aborted'))),
          ),
      );
      await session.writer.flush();
      const stopped = await hs('stop', session.id);
      expect(stopped.code).toBe(0);
      expect((await running).status).toBe('cancelled');
      await session.writer.flush();

      const watched = await hs('watch', session.id, '--once');
      const lines = watched.out.split('\n');
      const compile = lines.findIndex((l) => l.includes('step: Compile'));
      const pad = /^ */.exec(lines[compile]!)![0];
      expect(lines.slice(compile, compile + 3)).toEqual([
        `${pad}✗ step: Compile — tsc failed:`,
        `${pad}    src/a.ts(1,1): error TS1`,
        `${pad}    src/b.ts(2,2): error TS2`,
      ]);
      expect(watched.out).toMatch(/⊘ Bash: Run `sleep 60` — cancelled/);
      expect(watched.out).not.toContain('The operation was aborted');
    } finally {
      await session.close({ archive: false });
    }
  }, 60_000);
});

describe('the CLI package README', () => {
  it('lists every command --help lists', async () => {
    const help = await cli(['--help']);
    const commands = [...help.out.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['keygen', 'send', 'stop', 'answer', 'attach', 'link']));
    const readme = readFileSync(new URL('../../packages/cli/README.md', import.meta.url), 'utf8');
    for (const command of commands)
      expect(readme, command).toMatch(new RegExp(`^\\| \`${command}[ \`]`, 'm'));
  });
});
