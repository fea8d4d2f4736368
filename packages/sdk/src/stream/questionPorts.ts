import type {
  Question,
  QuestionAnswer,
  QuestionMessage,
  SessionMessage,
} from '../protocol/sessionMessage.js';
import type { Delivery } from './types.js';

/**
 * One question as an agent asks it (docs/questions.md): `id` defaults to `q1`, `q2`, … in order,
 * `header` to the question, `options` (labels, or `{label, description}`) to none, which makes it
 * a free-text question.
 */
export interface AskQuestion {
  /** What answers are keyed by; default `q1`, `q2`, … by position. */
  readonly id?: string;
  /** A short label (a chip, a card heading); default the question. */
  readonly header?: string;
  /** The question, one line. */
  readonly question: string;
  /** The choices, as labels or `{label, description}`; none makes a free-text question. */
  readonly options?: ReadonlyArray<string | { readonly label: string; readonly description?: string }>;
  /** The person may pick several options; default a single choice. */
  readonly multiSelect?: boolean;
  /** The person may write their own answer; default true for a question without options, else false. */
  readonly allowCustom?: boolean;
  /** An answer that leaves it empty is refused; default true. */
  readonly required?: boolean;
}

/** Options of {@link AskScope.ask} (`turn.ask()`, `scope.ask()`). */
export interface AskOptions {
  /** Shown above the questions (the app's form title). */
  readonly title?: string;
  /** Cancels the question (it ends `cancelled`). The turn's stop ends it `stopped` in any case. */
  readonly signal?: AbortSignal;
  /** Optional deadline in ms; there is no default, since a person may take hours. Ends it `timed_out`. */
  readonly timeoutMs?: number;
  /** The question's id (what answers name); default a fresh cuid2. */
  readonly id?: string;
}

/** How `ask()` ended: the person's answers by question id, or why there are none. */
export type AskResult =
  | {
      readonly status: 'answered';
      readonly questionId: string;
      readonly answers: Readonly<Record<string, QuestionAnswer>>;
      /** The channel the answer came by. */
      readonly via: 'rpc' | 'local' | 'stream';
    }
  | { readonly status: 'cancelled' | 'timed_out' | 'stopped'; readonly questionId: string };

/** What the question desk sees of the scope a question is asked in: the narrow port `Scope.ask` builds. */
export interface AskTarget {
  readonly turnId: string;
  readonly parentId: string | undefined;
  readonly agentId: string | undefined;
  /** The turn's stop: aborted when the user stops the turn or it ends. */
  readonly signal: AbortSignal;
  /** Appends the `question` message in the scope. Throws `SdkError` once the scope is closed. */
  append(content: {
    readonly questionId: string;
    readonly title?: string;
    readonly questions: readonly Question[];
  }): { readonly message: QuestionMessage; readonly delivery: Delivery };
  /** Appends the question's `question-end` in the scope (or as given, once the scope is closed). */
  end(
    content: Omit<
      Extract<SessionMessage, { type: 'question-end' }>,
      'id' | 'time' | 'role' | 'type' | 'turn' | 'parentId' | 'agentId'
    >,
  ): Delivery;
}

/** What the question desk does for the stream layer; implemented by `QuestionDesk`. */
export interface QuestionRuntime {
  /** Asks and waits for the first valid answer; resolves (never rejects) once the question ends. */
  ask(target: AskTarget, questions: readonly AskQuestion[], options: AskOptions): Promise<AskResult>;
}
