import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskResult, Scope } from 'happy-session';
import type { QuestionMessage } from 'happy-session/protocol';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { until } from '../helpers/until.js';
import { cli, relayHome, ScriptedTerminal } from './helpers.js';
import type { RelayHome } from './helpers.js';

/** `happy-session answer <session> <questionId> …` against a real relay and a `connect()`ed agent. */
let env: RelayHome;
let agent: Session;
beforeEach(async () => {
  env = await relayHome();
  agent = await connect({
    server: env.relay.url,
    credentials: env.credentials,
    title: 'Agent',
    shutdownSignals: false,
  });
});
afterEach(async () => {
  await agent.close();
  await env.close();
});

const run = (argv: string[], terminal?: ScriptedTerminal) =>
  cli([...argv, '--server', env.relay.url], {
    env: { HAPPY_HOME_DIR: env.home },
    ...(terminal ? { terminal } : {}),
  });

async function asked(scope: Scope, questions: Parameters<Scope['ask']>[0]) {
  const answer: Promise<AskResult> = scope.ask(questions);
  await until(() => agent.questions!.pending.length > 0);
  await agent.writer.flush();
  return { answer, question: agent.questions!.pending[0] as QuestionMessage };
}

describe('happy-session answer, for questions', () => {
  it('lists a pending question with how to answer it, and answers it by label', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, [
      { id: 'db', question: 'Which database?', options: ['Postgres', 'SQLite'] },
    ]);
    const listed = await run(['answer', agent.id]);
    expect(listed.out).toContain(`${question.questionId}  Which database?`);
    expect(listed.out).toContain('db: Which database? (one of Postgres | SQLite)');

    const answered = await run(['answer', agent.id, question.questionId, 'sqlite']);
    expect(answered.code).toBe(0);
    expect(answered.out).toBe(`Answered question ${question.questionId} (db: SQLite); the agent took it.`);
    expect(await answer).toMatchObject({
      status: 'answered',
      answers: { db: { options: ['SQLite'] } },
      via: 'rpc',
    });

    const again = await run(['answer', agent.id, question.questionId, 'Postgres']);
    expect(again.code).toBe(1);
    turn.end();
  });

  it('answers a form of several with <questionId>=<answer>, several labels and own text; a required one left out is refused', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, [
      { id: 'checks', question: 'Which checks?', options: ['lint', 'tests', 'e2e'], multiSelect: true },
      { id: 'name', question: 'Release name?' },
    ]);
    const refused = await run(['answer', agent.id, question.questionId, 'checks=lint']);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(
      /^Refused \(questions\.required_missing\): Required question left unanswered: name\./,
    );

    const answered = await run([
      'answer',
      agent.id,
      question.questionId,
      'checks=lint,e2e',
      'name=Blue moon',
      '--json',
    ]);
    expect(answered.code).toBe(0);
    expect(JSON.parse(answered.out)).toMatchObject({ status: 'applied' });
    expect(await answer).toMatchObject({
      answers: { checks: { options: ['lint', 'e2e'] }, name: { options: [], custom: 'Blue moon' } },
    });
    turn.end();
  });

  it('asks each question on a terminal when no answer is given', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, [
      { id: 'db', header: 'Database', question: 'Which database?', options: ['Postgres', 'SQLite'] },
      { id: 'why', question: 'Why?', required: false },
    ]);
    const terminal = new ScriptedTerminal();
    const done = run(['answer', agent.id, question.questionId], terminal);
    await terminal.shows('  2) SQLite');
    terminal.type('2\r');
    await terminal.shows('Why?');
    terminal.type('small\x7f\x7f\x7f\x7f\x7fone file\r');
    expect((await done).code).toBe(0);
    expect(await answer).toMatchObject({
      answers: { db: { options: ['SQLite'] }, why: { options: [], custom: 'one file' } },
    });
    turn.end();
  });

  it('--cancel dismisses the question', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, [{ question: 'Go on?', options: ['yes', 'no'] }]);
    expect((await run(['answer', agent.id, question.questionId, '--cancel'])).code).toBe(0);
    expect(await answer).toMatchObject({ status: 'cancelled' });
    turn.end();
  });
});
