import type {
  QuestionAnswerMessage,
  QuestionEndMessage,
  QuestionMessage,
  SessionMessage,
} from '../protocol/sessionMessage.js';

/**
 * What a stream says of its questions, one message at a time (docs/questions.md, "In the stream"):
 * the first `question-end` of a question is its outcome; a question whose turn ended without one
 * was left by a process that stopped, and no longer waits. The people's `question-answer` records
 * to a question still open are kept, in order, for the agent to apply (a successor applies those
 * given while no agent ran, docs/recovery.md). The fold shows its pending questions.
 */
export class QuestionLedger {
  private readonly asked = new Map<string, QuestionMessage>();
  private readonly endings = new Map<string, QuestionEndMessage>();
  private readonly replies = new Map<string, QuestionAnswerMessage[]>();
  private readonly endedTurns = new Set<string>();

  /** Reads one message (the agent's `question`, `question-end` and `turn-end`, the user's `question-answer`). */
  apply(m: SessionMessage): void {
    if (m.role === 'user') {
      if (m.type === 'question-answer' && this.open(m.questionId))
        this.replies.set(m.questionId, [...(this.replies.get(m.questionId) ?? []), m]);
      return;
    }
    if (m.type === 'question' && !this.asked.has(m.questionId)) this.asked.set(m.questionId, m);
    else if (m.type === 'question-end' && !this.endings.has(m.questionId)) this.endings.set(m.questionId, m);
    else if (m.type === 'turn-end') this.endedTurns.add(m.turn);
  }

  /** Asked, not ended, in a turn that has not ended, in the order asked. */
  get pending(): QuestionMessage[] {
    return [...this.asked.values()].filter((q) => this.open(q.questionId));
  }

  /** The people's answers to a question, in stream order, written while it was open. */
  answersTo(questionId: string): readonly QuestionAnswerMessage[] {
    return this.replies.get(questionId) ?? [];
  }

  private open(questionId: string): boolean {
    const q = this.asked.get(questionId);
    return q !== undefined && !this.endings.has(questionId) && !this.endedTurns.has(q.turn);
  }

  /** The question with this id, if asked. */
  question(questionId: string): QuestionMessage | undefined {
    return this.asked.get(questionId);
  }

  /** How the question ended, if it did. */
  ending(questionId: string): QuestionEndMessage | undefined {
    return this.endings.get(questionId);
  }

  /** Every ended question's outcome. */
  get ended(): ReadonlyMap<string, QuestionEndMessage> {
    return this.endings;
  }
}

/** The ledger of `messages`. */
export function questionLedgerOf(messages: Iterable<SessionMessage>): QuestionLedger {
  const ledger = new QuestionLedger();
  for (const m of messages) ledger.apply(m);
  return ledger;
}
