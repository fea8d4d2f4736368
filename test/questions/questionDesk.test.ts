import { afterEach, describe, expect, it, vi } from 'vitest';
import { QuestionDesk, SdkError, fold, parseSessionMessage } from 'happy-session';
import { MemoryRpc, MemorySessionState } from 'happy-session/ports';
import { createV1Encoder } from 'happy-session/v1';
import { appForms } from '../helpers/happyAppModel.js';
import { memorySession, normaliseIds } from '../helpers/memorySession.js';

/** The question desk on an in-memory session, with an injected clock for its timeouts. */
function desk(options: { pushDelayMs?: number } = {}) {
  const session = memorySession();
  const state = new MemorySessionState();
  const rpc = new MemoryRpc();
  const questions = QuestionDesk.create({ writer: session.writer, state, push: state, rpc, ...options });
  const seen: unknown[] = [];
  session.writer.messages$.subscribe((m) => seen.push(m));
  return { ...session, state, rpc, questions, seen };
}

afterEach(() => vi.useRealTimers());

describe('turn.ask() timeouts, signals and bad questions', () => {
  it("a timeout ends the question timed_out, in the stream and in the app's form (fake timers)", async () => {
    vi.useFakeTimers();
    const { writer, questions, state, seen } = desk();
    const turn = writer.turn();
    const answer = turn.ask([{ question: 'Continue?', options: ['yes', 'no'] }], { timeoutMs: 60_000 });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(questions.pending).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const result = await answer;
    expect(result).toEqual({ status: 'timed_out', questionId: expect.any(String) });
    expect(questions.answer(result.questionId, { answers: { q1: { options: ['yes'] } } })).toMatchObject({
      code: 'questions.settled',
      ended: 'timed_out',
    });
    await questions.settled();
    expect(appForms(state.agentState).completed).toMatchObject([
      { id: result.questionId, status: 'cancelled' },
    ]);
    turn.end();
    expect(normaliseIds(seen as object[])).toEqual([
      { role: 'agent', type: 'turn-start', turn: '#1' },
      {
        role: 'agent',
        type: 'question',
        turn: '#1',
        questionId: result.questionId,
        questions: [
          {
            id: 'q1',
            header: 'Continue?',
            question: 'Continue?',
            options: [{ label: 'yes' }, { label: 'no' }],
            multiSelect: false,
            allowCustom: false,
            required: true,
          },
        ],
      },
      { role: 'agent', type: 'question-end', turn: '#1', questionId: result.questionId, status: 'timed_out' },
      { role: 'agent', type: 'turn-end', turn: '#1', status: 'completed' },
    ]);
  });

  it('events$ tells each question asked and ended, once each, in order', async () => {
    const { writer, questions } = desk();
    const events: string[] = [];
    questions
      .events$()
      .subscribe((e) => events.push(`${e.kind}:${e.kind === 'ended' ? e.result.status : e.recovered}`));
    const turn = writer.turn();
    const first = turn.ask([{ question: 'a?', options: ['x'] }]);
    questions.answer(questions.pending[0]!.questionId, { answers: { q1: { options: ['x'] } } });
    await first;
    const second = turn.ask([{ question: 'b?' }]);
    turn.end();
    await second;
    expect(events).toEqual(['asked:false', 'ended:answered', 'asked:false', 'ended:stopped']);
  });

  it('events() is the same as an async iterable, until its signal aborts', async () => {
    const { writer, questions } = desk();
    const stop = new AbortController();
    const events = questions.events({ signal: stop.signal });
    const turn = writer.turn();
    const asked = turn.ask([{ question: 'a?', options: ['x'] }]);
    questions.answer(questions.pending[0]!.questionId, { answers: { q1: { options: ['x'] } } });
    await asked;
    const seen: string[] = [];
    for await (const e of events) {
      seen.push(e.kind);
      if (e.kind === 'ended') stop.abort();
    }
    turn.end();
    expect(seen).toEqual(['asked', 'ended']);
  });

  it('its own signal cancels it; an already aborted one asks nothing', async () => {
    const { writer, seen } = desk();
    const turn = writer.turn();
    const controller = new AbortController();
    const answer = turn.ask([{ question: 'Name?' }], { signal: controller.signal });
    controller.abort();
    expect(await answer).toMatchObject({ status: 'cancelled' });
    expect(await turn.ask([{ question: 'Name?' }], { signal: controller.signal })).toMatchObject({
      status: 'cancelled',
    });
    expect((seen as Array<{ type: string }>).filter((m) => m.type === 'question')).toHaveLength(1);
    turn.end();
  });

  it('ending the turn ends its questions stopped, before the turn-end', async () => {
    const { writer, seen } = desk();
    const turn = writer.turn();
    const answer = turn.ask([{ question: 'Name?' }]);
    turn.end();
    expect(await answer).toMatchObject({ status: 'stopped' });
    expect((seen as Array<{ type: string }>).map((m) => m.type)).toEqual([
      'turn-start',
      'question',
      'question-end',
      'turn-end',
    ]);
  });

  it('refuses questions that cannot be answered with questions.invalid, and appends nothing', () => {
    const { writer, seen } = desk();
    const turn = writer.turn();
    const bad = [
      [],
      [{ question: '' }],
      [{ question: 'a', options: [], allowCustom: false }],
      [{ question: 'a', options: ['x', 'x'] }],
      [
        { id: 'same', question: 'a' },
        { id: 'same', question: 'b' },
      ],
    ];
    for (const questions of bad) {
      expect(() => turn.ask(questions)).toThrow(SdkError);
      try {
        turn.ask(questions);
      } catch (error) {
        expect((error as SdkError).code).toBe('questions.invalid');
      }
    }
    expect(() => turn.ask([{ question: 'a' }], { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect((seen as Array<{ type: string }>).map((m) => m.type)).toEqual(['turn-start']);
    turn.end();
  });

  it("answers by the communication RPC; a body that is not the app's shape is refused", async () => {
    const { writer, rpc, questions } = desk();
    const turn = writer.turn();
    const answer = turn.ask([{ id: 'db', question: 'Which?', options: ['a', 'b'] }]);
    const id = questions.pending[0]!.questionId;
    expect(await rpc.call('communication', 'nope')).toMatchObject({ code: 'questions.invalid_answer' });
    expect(await rpc.call('communication', { id, kind: 'permission', status: 'answered' })).toMatchObject({
      code: 'questions.invalid_answer',
    });
    expect(await rpc.call('communication', { id, kind: 'form', status: 'maybe' })).toMatchObject({
      code: 'questions.invalid_answer',
    });
    expect(
      await rpc.call('communication', {
        id,
        kind: 'form',
        status: 'answered',
        answers: { zz: { options: [] } },
      }),
    ).toMatchObject({
      code: 'questions.unknown_question',
    });
    expect(
      await rpc.call('communication', {
        id,
        kind: 'form',
        status: 'answered',
        answers: { db: { options: ['b'] } },
      }),
    ).toMatchObject({
      status: 'applied',
    });
    expect(await answer).toMatchObject({ status: 'answered', answers: { db: { options: ['b'] } } });
    turn.end();
  });

  it('a desk made with the stream of a dead process takes up its pending question once', async () => {
    const first = desk();
    const turn = first.writer.turn();
    void turn.ask([{ id: 'db', question: 'Which?', options: ['a', 'b'] }]);
    const history = first.seen.map((m) => parseSessionMessage(m)).map((r) => (r.ok ? r.value : undefined));
    const session = memorySession();
    const state = new MemorySessionState();
    const questions = QuestionDesk.create({
      writer: session.writer,
      state,
      history: history.filter((m) => m !== undefined),
    });
    const [pending] = questions.pending;
    expect(pending?.turn).toBe(turn.id);
    await questions.settled();
    expect(appForms(state.agentState).pending.map((f) => f.id)).toEqual([pending!.questionId]);
    const waiting = questions.result(pending!.questionId);
    expect(questions.answer(pending!.questionId, { answers: { db: { options: ['a'] } } })).toMatchObject({
      status: 'applied',
    });
    expect(await waiting).toMatchObject({ status: 'answered', answers: { db: { options: ['a'] } } });
    expect(questions.result(pending!.questionId)).toBeUndefined();
    expect(questions.answer(pending!.questionId, { answers: { db: { options: ['b'] } } })).toMatchObject({
      code: 'questions.settled',
    });
    const written = await (async () => {
      await session.writer.flush();
      return session.reader.messages();
    })();
    expect(written).toMatchObject([
      {
        type: 'question-end',
        turn: turn.id,
        questionId: pending!.questionId,
        status: 'answered',
        via: 'local',
      },
    ]);
    expect(fold([...history.filter((m) => m !== undefined), ...written]).pendingQuestions).toEqual([]);
    turn.end();
  });
});

describe('v1 output', () => {
  it('writes no record for question and question-end: the app shows them from agentState', () => {
    const encoder = createV1Encoder();
    expect(
      encoder.encode({
        id: 'a',
        time: 1,
        role: 'agent',
        type: 'question',
        turn: 't',
        questionId: 'x',
        questions: [{ id: 'q', header: 'h', question: 'q?', options: [] }],
      }),
    ).toEqual([]);
    expect(
      encoder.encode({
        id: 'b',
        time: 2,
        role: 'agent',
        type: 'question-end',
        turn: 't',
        questionId: 'x',
        status: 'stopped',
      }),
    ).toEqual([]);
  });
});

describe('questions without a desk, and the fold', () => {
  it('ask() on a writer with no question desk throws questions.not_configured', () => {
    const { writer } = memorySession();
    const turn = writer.turn();
    expect(() => turn.ask([{ question: 'a?' }])).toThrow(
      expect.objectContaining({ code: 'questions.not_configured' }),
    );
    turn.end();
  });

  it('fold() lists a question as pending until its question-end, and not once its turn ended without one', () => {
    const base = { role: 'agent' as const, turn: 't' };
    const asked = {
      ...base,
      id: 'a',
      time: 1,
      type: 'question' as const,
      questionId: 'x',
      questions: [{ id: 'q', header: 'h', question: 'q?', options: [] }],
    };
    expect(fold([asked]).pendingQuestions.map((q) => q.questionId)).toEqual(['x']);
    const ended = {
      ...base,
      id: 'b',
      time: 2,
      type: 'question-end' as const,
      questionId: 'x',
      status: 'answered' as const,
      answers: { q: { options: [], custom: 'y' } },
    };
    const folded = fold([asked, ended]);
    expect(folded.pendingQuestions).toEqual([]);
    expect(folded.question('x')?.end).toMatchObject({ status: 'answered' });
    const turnEnd = { ...base, id: 'c', time: 3, type: 'turn-end' as const, status: 'completed' as const };
    expect(fold([asked, turnEnd]).pendingQuestions).toEqual([]);
    // A user record cannot end a question: only the agent's question-end counts.
    expect(parseSessionMessage({ ...ended, role: 'user' }).ok).toBe(false);
  });
});
