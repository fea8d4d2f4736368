import type { Logger } from '../logger.js';
import type { SessionStateStore, StateObject } from '../ports/sessionState.js';
import { StateWriteQueue } from '../ports/stateWriteQueue.js';
import type { QuestionMessage } from '../protocol/sessionMessage.js';
import type { AskResult } from '../stream/questionPorts.js';

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...(value as object) } : {};
}

/** A question as today's app reads it from `agentState.communications` (docs/questions.md, "In today's app"). */
function formOf(message: QuestionMessage, createdAt: number): StateObject {
  return {
    kind: 'form',
    createdAt,
    // The call the question is asked inside: the app joins the form to that call's card.
    ...(message.parentId !== undefined ? { toolUseId: message.parentId } : {}),
    ...(message.title !== undefined ? { title: message.title } : {}),
    form: { questions: message.questions },
  };
}

/**
 * Projects the desk's questions into `agentState.communications` / `completedCommunications`, so
 * today's Happy app shows its banner and form and, once settled, the answers. The stream stays the
 * source of truth: a failed write is logged and changes no outcome.
 */
export class CommunicationsMirror {
  private readonly writes: StateWriteQueue;

  constructor(state: SessionStateStore, logger: Logger) {
    this.writes = new StateWriteQueue(state, logger);
  }

  /** Adds a pending question. */
  asked(message: QuestionMessage, createdAt: number): Promise<void> {
    return this.writes.update((s) => {
      const communications = record(s.communications);
      const completed = record(s.completedCommunications);
      communications[message.questionId] = formOf(message, createdAt);
      delete completed[message.questionId];
      return { ...s, communications, completedCommunications: completed };
    });
  }

  /** Moves a question to `completedCommunications`: answered with its answers, else cancelled. */
  ended(message: QuestionMessage, createdAt: number, result: AskResult): Promise<void> {
    return this.writes.update((s) => {
      const communications = record(s.communications);
      const completed = record(s.completedCommunications);
      delete communications[message.questionId];
      completed[message.questionId] = {
        ...formOf(message, createdAt),
        completedAt: Date.now(),
        // The app knows two outcomes: an expired or stopped question reads as cancelled.
        status: result.status === 'answered' ? 'answered' : 'cancelled',
        ...(result.status === 'answered' ? { answers: result.answers } : {}),
      };
      return { ...s, communications, completedCommunications: completed };
    });
  }

  /**
   * At start-up: the forms of `pending` (recovered from the stream) are shown, and every other
   * form a previous process left is moved to completed as cancelled, so no stale form waits.
   */
  reset(pending: ReadonlyArray<{ message: QuestionMessage; createdAt: number }>): Promise<void> {
    return this.writes.update((s) => {
      const communications: Record<string, unknown> = {};
      const completed = record(s.completedCommunications);
      for (const [id, value] of Object.entries(record(s.communications))) {
        completed[id] = { ...record(value), completedAt: Date.now(), status: 'cancelled' };
      }
      for (const { message, createdAt } of pending) {
        communications[message.questionId] = formOf(message, createdAt);
        delete completed[message.questionId];
      }
      return { ...s, communications, completedCommunications: completed };
    });
  }

  /** Resolves when every write so far has settled. */
  settled(): Promise<void> {
    return this.writes.settled();
  }
}
