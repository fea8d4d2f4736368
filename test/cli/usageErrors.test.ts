import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResult } from 'happy-session';
import type { QuestionMessage } from 'happy-session/protocol';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { until } from '../helpers/until.js';
import { tempDir } from '../transport/helpers.js';
import { relayHome, spawnCli } from './helpers.js';
import type { RelayHome } from './helpers.js';

// Usage errors a command finds itself (options that do not go together, a missing choice or
// answer) end like commander's: exit 2, with the message, a hint and the code on stderr (docs/cli.md,
// "Exit codes"). Each is the `happy-session` process as a user starts it.
let env: RelayHome;
let empty: { path: string; remove: () => void };
beforeAll(async () => {
  env = await relayHome();
  empty = tempDir('happy-usage-');
}, 60_000);
afterAll(async () => {
  empty?.remove();
  await env?.close();
});

const homeEnv = (): Record<string, string> => ({ HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url });

async function finished(args: string[], childEnv: Record<string, string> = homeEnv()) {
  const run = spawnCli(args, childEnv);
  const code = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

describe('usage errors a command finds', () => {
  it('run --preview without --ask: exit 2, message, hint and code; the command does not run', async () => {
    const target = join(empty.path, 'preview-ran');
    const run = await finished(['run', '--preview', '--', 'touch', target]);
    expect(run).toEqual({
      code: 2,
      out: '',
      err: [
        'happy-session: --preview needs --ask: it previews what the permission request asks about.',
        '  hint: happy-session run --ask --preview -- <command…>',
        '  code: cli.usage',
        '',
      ].join('\n'),
    });
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it('run --allow-read without --sandbox: exit 2, message, hint and code; the command does not run', async () => {
    const target = join(empty.path, 'allow-read-ran');
    const run = await finished(['run', '--allow-read', empty.path, '--', 'touch', target]);
    expect(run).toEqual({
      code: 2,
      out: '',
      err: [
        'happy-session: --allow-read needs --sandbox: outside it every file is readable.',
        '  hint: happy-session run --sandbox --allow-read <path> -- <command…>',
        '  code: cli.usage',
        '',
      ].join('\n'),
    });
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it('answer --all without a choice: exit 2 with code cli.bad_choice, as text and as --json', async () => {
    const text = await finished(['answer', 'any-session', '--all']);
    expect(text.code).toBe(2);
    expect(text.err).toBe(
      [
        'happy-session: Say what to answer: allow, allow-session, deny or deny-always.',
        '  hint: happy-session answer <session> --all allow',
        '  code: cli.bad_choice',
        '',
      ].join('\n'),
    );
    const json = await finished(['answer', 'any-session', '--all', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.err)).toEqual({
      code: 'cli.bad_choice',
      message: 'Say what to answer: allow, allow-session, deny or deny-always.',
      hint: 'happy-session answer <session> --all allow',
    });
  }, 60_000);

  it('answer <session> <questionId> with no answer and no terminal: the question, then exit 2 with code cli.usage', async () => {
    const agent: Session = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: 'Agent',
      shutdownSignals: false,
    });
    try {
      const turn = agent.turn();
      const answer: Promise<AskResult> = turn.ask([
        { id: 'db', question: 'Which database?', options: ['Postgres', 'SQLite'] },
      ]);
      await until(() => agent.questions!.pending.length > 0);
      await agent.writer.flush();
      const question = agent.questions!.pending[0] as QuestionMessage;
      const run = await finished(['answer', agent.id, question.questionId]);
      expect(run.code).toBe(2);
      expect(run.out).toBe(
        `${question.questionId}  Which database?\n  db: Which database? (one of Postgres | SQLite)\n`,
      );
      expect(run.err).toBe(
        [
          'happy-session: Say the answer, or run this on a terminal to be asked.',
          `  hint: happy-session answer <session> ${question.questionId} <answer>`,
          '  code: cli.usage',
          '',
        ].join('\n'),
      );
      // Still waiting: a usage error answered nothing.
      expect(agent.questions!.pending.map((q) => q.questionId)).toEqual([question.questionId]);
      turn.end();
      await answer.catch(() => undefined);
    } finally {
      await agent.close();
    }
  }, 60_000);

  it('positive control: a failure that is not about the command line stays exit 1', async () => {
    const run = await finished(['sessions'], { HAPPY_HOME_DIR: empty.path, HAPPY_SERVER_URL: env.relay.url });
    expect(run.code).toBe(1);
    expect(run.err).toContain('  code: credentials.missing');
  }, 60_000);

  it("positive control: commander's own usage errors are exit 2 as before", async () => {
    const run = await finished(['run', '--no-such-option', '--', 'true']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("error: unknown option '--no-such-option'");
  }, 60_000);
});
