import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { AskOptions, AskQuestion, AskResult, Scope, SessionMessage } from 'happy-session';
import type { QuestionMessage } from 'happy-session/protocol';
import type { UserSession } from 'happy-session/user';
import { Account, connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import type { RecordKey } from 'happy-session/crypto';
import { READING_ORDERS, appForms, appReads } from '../helpers/happyAppModel.js';
import { AppClient } from '../transport/appClient.js';
import { appSocket, relayWithAccount } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { until } from '../helpers/until.js';

/**
 * `turn.ask()` against a real relay with real sockets (docs/questions.md): answered by today's
 * app's `communication` RPC, by `UserSession`, and locally; checked in the stream and in
 * agentState as the app reads it.
 */
let account: RelayAccount;
let agent: Session;
let app: AppClient;
let key: RecordKey;
let userAccount: Account;
let user: UserSession;

beforeEach(async () => {
  account = await relayWithAccount();
  agent = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    title: 'Agent',
    shutdownSignals: false,
  });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  key = await app.keyOf(agent.id);
  userAccount = await Account.open({ server: account.relay.url, credentials: account.credentials });
  user = await userAccount.session(agent.id);
});
afterEach(async () => {
  app.close();
  await user.close();
  await userAccount.close();
  await agent.close();
  await account.relay.close();
});

const DATABASE = [
  { id: 'db', header: 'Database', question: 'Which database?', options: ['Postgres', 'SQLite'] },
];

/** agentState as the app decrypts it from the server. */
async function appState(): Promise<unknown> {
  await agent.questions!.settled();
  const row = await app.session(agent.id);
  return app.decrypt(row.agentState, key);
}

async function stored(): Promise<SessionMessage[]> {
  await agent.writer.flush();
  return agent.reader.messages();
}

/** Asks, and waits until the question is stored and mirrored. */
async function asked(
  turn: Scope,
  questions: readonly AskQuestion[],
  options: AskOptions = {},
): Promise<{ answer: Promise<AskResult>; question: QuestionMessage }> {
  const answer = turn.ask(questions, options);
  await until(() => agent.questions!.pending.length > 0);
  await agent.writer.flush();
  await agent.questions!.settled();
  return { answer, question: agent.questions!.pending[0]! };
}

describe('turn.ask() on the relay', () => {
  it("today's app answers by the communication RPC in its own shape; the form shows, then its answers", async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, DATABASE, { title: 'Set-up' });

    const shown = appForms(await appState());
    expect(shown.pending).toEqual([
      {
        id: question.questionId,
        createdAt: expect.any(Number),
        title: 'Set-up',
        status: 'pending',
        questions: [
          {
            id: 'db',
            header: 'Database',
            question: 'Which database?',
            options: [{ label: 'Postgres' }, { label: 'SQLite' }],
            multiSelect: false,
            allowCustom: false,
            required: true,
          },
        ],
      },
    ]);

    // The app's exact body: sessionAnswerQuestion's `{id, kind, status, answers}`.
    const reply = await app.call(
      agent.id,
      'communication',
      { id: question.questionId, kind: 'form', status: 'answered', answers: { db: { options: ['SQLite'] } } },
      key,
    );
    expect(reply).toMatchObject({ status: 'applied', questionId: question.questionId });
    expect(await answer).toEqual({
      status: 'answered',
      questionId: question.questionId,
      answers: { db: { options: ['SQLite'] } },
      via: 'rpc',
    });

    const after = appForms(await appState());
    expect(after.pending).toEqual([]);
    expect(after.completed).toMatchObject([
      { id: question.questionId, status: 'answered', answers: { db: { options: ['SQLite'] } } },
    ]);
    const messages = await stored();
    expect(messages.filter((m) => m.type === 'question-end')).toMatchObject([
      {
        role: 'agent',
        turn: turn.id,
        questionId: question.questionId,
        status: 'answered',
        answers: { db: { options: ['SQLite'] } },
        via: 'rpc',
      },
    ]);
    expect(fold(messages).pendingQuestions).toEqual([]);
    turn.end();
  });

  it('UserSession lists the pending question and answers several choices and its own text', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, [
      {
        id: 'checks',
        question: 'Which checks before deploying?',
        options: ['lint', 'tests', { label: 'e2e', description: 'slow' }],
        multiSelect: true,
      },
      { id: 'note', question: 'Anything else?', required: false },
      { id: 'name', question: 'Release name?', options: ['next'], allowCustom: true },
    ]);
    expect((await user.questions()).map((q) => q.questionId)).toEqual([question.questionId]);
    expect(fold(await stored()).pendingQuestions.map((q) => q.questionId)).toEqual([question.questionId]);

    const sent = await user.answerQuestion(question.questionId, {
      checks: { options: ['lint', 'e2e'] },
      name: { options: [], custom: '  Aurora ' },
    });
    expect(sent).toMatchObject({ status: 'applied' });
    expect(await answer).toEqual({
      status: 'answered',
      questionId: question.questionId,
      answers: { checks: { options: ['lint', 'e2e'] }, name: { options: [], custom: 'Aurora' } },
      via: 'rpc',
    });
    expect(await user.questions()).toEqual([]);
    turn.end();
  });

  it('refuses an empty required question, an option not offered and a second answer, each with its code; the first valid answer wins', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, DATABASE);
    const id = question.questionId;

    expect(await user.answerQuestion(id, {})).toMatchObject({
      status: 'refused',
      code: 'questions.required_missing',
    });
    expect(await user.answerQuestion(id, { db: { options: ['MySQL'] } })).toMatchObject({
      status: 'refused',
      code: 'questions.unknown_option',
    });
    expect(await user.answerQuestion(id, { db: { options: ['Postgres', 'SQLite'] } })).toMatchObject({
      status: 'refused',
      code: 'questions.not_multi_select',
    });
    expect(await user.answerQuestion(id, { db: { options: [], custom: 'Oracle' } })).toMatchObject({
      status: 'refused',
      code: 'questions.custom_not_allowed',
    });
    // Still waiting after every refusal.
    expect(agent.questions!.pending.map((q) => q.questionId)).toEqual([id]);

    expect(agent.questions!.answer(id, { answers: { db: { options: ['Postgres'] } } })).toMatchObject({
      status: 'applied',
    });
    expect(await answer).toMatchObject({
      status: 'answered',
      via: 'local',
      answers: { db: { options: ['Postgres'] } },
    });
    expect(await user.answerQuestion(id, { db: { options: ['SQLite'] } })).toMatchObject({
      status: 'refused',
      code: 'questions.settled',
      ended: 'answered',
    });
    expect(await user.answerQuestion('nope', { db: { options: ['SQLite'] } })).toMatchObject({
      status: 'refused',
      code: 'questions.unknown',
    });
    const ends = (await stored()).filter((m) => m.type === 'question-end');
    expect(ends).toHaveLength(1);
    turn.end();
  });

  it("the turn's stop (the app's abort RPC) ends a pending question stopped; the app's form reads cancelled", async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, DATABASE);
    await user.stop();
    expect(await answer).toEqual({ status: 'stopped', questionId: question.questionId });
    expect(appForms(await appState()).completed).toMatchObject([
      { id: question.questionId, status: 'cancelled' },
    ]);
    expect((await stored()).filter((m) => m.type === 'question-end')).toMatchObject([
      { questionId: question.questionId, status: 'stopped' },
    ]);
    turn.end();
  });

  it('the app dismissing the form ends it cancelled', async () => {
    const turn = agent.turn();
    const { answer, question } = await asked(turn, DATABASE);
    expect(
      await app.call(
        agent.id,
        'communication',
        { id: question.questionId, kind: 'form', status: 'cancelled' },
        key,
      ),
    ).toMatchObject({ status: 'applied' });
    expect(await answer).toEqual({ status: 'cancelled', questionId: question.questionId });
    turn.end();
  });

  it('a question inside a tool call joins that call in the app (toolUseId), and ends stopped with the call', async () => {
    const turn = agent.turn();
    const call = turn.toolCall({ toolName: 'deploy', title: 'Deploy' });
    const { answer, question } = await asked(call.scope(), DATABASE);
    expect(appForms(await appState()).pending[0]).toMatchObject({ toolUseId: call.callId });
    call.end();
    expect(await answer).toEqual({ status: 'stopped', questionId: question.questionId });
    const messages = await stored();
    const end = messages.findIndex((m) => m.type === 'question-end');
    const callEnd = messages.findIndex((m) => m.type === 'tool-call-end');
    expect(end).toBeLessThan(callEnd);
    expect(messages[end]).toMatchObject({ parentId: call.callId });
    turn.end();
  });

  it('a push goes out for a question still waiting, as for permission requests', async () => {
    // The relay has no push service: it sends the app's `session-event` ephemeral for each push.
    const socket = await appSocket(account.relay.url, account.token);
    const events: Array<Record<string, unknown>> = [];
    socket.on('ephemeral', (event: Record<string, unknown>) => events.push(event));
    const turn = agent.turn();
    const { answer, question } = await asked(turn, DATABASE);
    await until(() => events.some((e) => e.type === 'session-event' && e.kind === 'question'));
    expect(events.find((e) => e.kind === 'question')).toMatchObject({
      sessionId: agent.id,
      title: 'Clarification needed',
      body: 'Agent',
    });
    agent.questions!.answer(question.questionId, { status: 'cancelled' });
    await answer;
    socket.close();
    turn.end();
  });
});

describe('a v1 session (what a Happy server gets)', () => {
  it("today's app shows the form from agentState, reads every record, and shows the answers once answered", async () => {
    const v1 = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      title: 'A v1 agent',
      format: 'v1',
      shutdownSignals: false,
    });
    const v1Key = await app.keyOf(v1.id);
    const turn = v1.turn();
    turn.text('One question first.');
    const answer = turn.ask(DATABASE);
    await until(() => v1.questions!.pending.length === 1);
    const id = v1.questions!.pending[0]!.questionId;
    await v1.writer.flush();
    await v1.questions!.settled();
    const state = async () => app.decrypt((await app.session(v1.id)).agentState, v1Key);
    expect(appForms(await state()).pending).toMatchObject([
      {
        id,
        questions: [
          { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
        ],
      },
    ]);
    await app.call(
      v1.id,
      'communication',
      { id, kind: 'form', status: 'answered', answers: { db: { options: ['Postgres'] } } },
      v1Key,
    );
    expect(await answer).toMatchObject({ status: 'answered' });
    turn.end();
    await v1.writer.flush();
    await v1.questions!.settled();
    expect(appForms(await state()).completed).toMatchObject([
      { id, status: 'answered', answers: { db: { options: ['Postgres'] } } },
    ]);
    const { messages } = await account.http.request<{
      messages: { seq: number; createdAt: number; content: { c: string } }[];
    }>('GET', `/v3/sessions/${v1.id}/messages?after_seq=0&limit=100`);
    const records = await Promise.all(
      messages.map(async (m) => ({
        record: await app.decrypt(m.content.c, v1Key),
        seq: m.seq,
        createdAt: m.createdAt,
      })),
    );
    for (const order of READING_ORDERS) {
      const screen = appReads(records, {}, order);
      expect(screen.dropped, order).toBe(0);
      expect(screen.rows, order).toEqual([
        { kind: 'agent-text', text: 'One question first.', thinking: false },
      ]);
    }
    await v1.close({ archive: false });
  });
});

describe('a restart mid-question (docs/recovery.md)', () => {
  /** A crash: what was sent stays, the connection goes, nothing more is written. */
  async function crash(): Promise<Session> {
    await agent.writer.flush();
    await agent.questions!.settled();
    await agent.transport.close({ end: false, archive: false });
    return agent;
  }

  it('an answer given while no agent ran reaches the successor once; the dead turn ends', async () => {
    const turn = agent.turn();
    void turn.ask(DATABASE).catch(() => undefined);
    await until(() => agent.questions!.pending.length > 0);
    const id = agent.questions!.pending[0]!.questionId;
    const crashed = await crash();

    // Nobody answers the RPC: the answer is kept in the stream for the next agent process.
    const sent = await user.answerQuestion(id, { db: { options: ['SQLite'] } });
    expect(sent).toMatchObject({ status: 'recorded', questionId: id });

    agent = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      sessionId: crashed.id,
      shutdownSignals: false,
    });
    expect(agent.interrupted.questions).toMatchObject([
      {
        question: { questionId: id },
        result: { status: 'answered', answers: { db: { options: ['SQLite'] } }, via: 'stream' },
      },
    ]);
    expect(agent.questions!.pending).toEqual([]);
    expect(await user.answerQuestion(id, { db: { options: ['Postgres'] } })).toMatchObject({
      code: 'questions.settled',
    });
    const messages = await stored();
    expect(messages.filter((m) => m.type === 'question-end')).toMatchObject([
      { questionId: id, status: 'answered', via: 'stream', turn: turn.id },
    ]);
    expect(messages.filter((m) => m.type === 'turn-end')).toMatchObject([
      { turn: turn.id, status: 'cancelled', reason: 'The agent restarted.' },
    ]);
    expect(fold(messages).pendingQuestions).toEqual([]);

    // A second successor finds it answered: nothing is delivered twice.
    await agent.close({ archive: false });
    agent = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      sessionId: crashed.id,
      shutdownSignals: false,
    });
    expect(agent.interrupted.questions).toEqual([]);
    expect(agent.questions!.answer(id, { answers: { db: { options: ['Postgres'] } } })).toMatchObject({
      code: 'questions.settled',
    });
  });

  it('a question nobody answered ends stopped with its turn, is reported, and the form is closed for the app', async () => {
    const turn = agent.turn();
    void turn.ask(DATABASE).catch(() => undefined);
    await until(() => agent.questions!.pending.length > 0);
    const id = agent.questions!.pending[0]!.questionId;
    const crashed = await crash();

    agent = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      sessionId: crashed.id,
      shutdownSignals: false,
    });
    expect(agent.interrupted.questions).toEqual([{ question: expect.objectContaining({ questionId: id }) }]);
    expect(agent.questions!.pending).toEqual([]);
    expect(appForms(await appState()).pending).toEqual([]);
    const messages = await stored();
    expect(messages.filter((m) => m.type === 'question-end')).toMatchObject([
      { questionId: id, status: 'stopped', turn: turn.id },
    ]);
    expect(fold(messages).turn(turn.id)).toMatchObject({ status: 'cancelled' });
  });
});
