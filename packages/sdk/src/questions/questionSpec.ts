import { SdkError } from '../errors.js';
import { QuestionSchema } from '../protocol/questionMessages.js';
import type { Question } from '../protocol/sessionMessage.js';
import type { AskQuestion } from '../stream/questionPorts.js';
import { MAX_TIMEOUT_MS } from '../ports/wait.js';

/**
 * The questions of an `ask()` as they go on the wire (docs/questions.md, "Asking"): every default
 * written out (`multiSelect`, `allowCustom`, `required`), so the stream, the app's form and the
 * checks of an answer read the same thing. Throws `questions.invalid` for questions that do not
 * validate, with the reason.
 */
export function questionsOf(input: readonly AskQuestion[]): Question[] {
  if (!Array.isArray(input) || input.length === 0)
    throw invalid(
      'ask() takes a non-empty array of questions.',
      'turn.ask([{ question: "Which database?", options: ["Postgres", "SQLite"] }])',
    );
  const seen = new Set<string>();
  return input.map((given, index) => {
    if (typeof given !== 'object' || given === null) throw invalid(`Question ${index + 1} is not an object.`);
    const options = (given.options ?? []).map((option: string | { label: string; description?: string }) =>
      typeof option === 'string' ? { label: option } : option,
    );
    const question = {
      id: given.id ?? `q${index + 1}`,
      header: given.header ?? given.question,
      question: given.question,
      options,
      multiSelect: given.multiSelect ?? false,
      allowCustom: given.allowCustom ?? options.length === 0,
      required: given.required ?? true,
    };
    const parsed = QuestionSchema.safeParse(question);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw invalid(
        `Question ${index + 1}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}.`,
      );
    }
    if (seen.has(question.id)) throw invalid(`Two questions have the id ${question.id}.`);
    seen.add(question.id);
    const labels = new Set(options.map((o: { label: string }) => o.label));
    if (labels.size !== options.length) throw invalid(`Question ${question.id} offers the same label twice.`);
    if (options.length === 0 && !question.allowCustom)
      throw invalid(`Question ${question.id} offers no options and no custom answer: it cannot be answered.`);
    return parsed.data;
  });
}

/** Checks an `ask()` timeout: a whole number of ms from 1 to the largest a timer holds, or none. */
export function checkTimeout(timeoutMs: unknown): number | undefined {
  if (timeoutMs === undefined) return undefined;
  if (
    typeof timeoutMs === 'number' &&
    Number.isInteger(timeoutMs) &&
    timeoutMs > 0 &&
    timeoutMs <= MAX_TIMEOUT_MS
  )
    return timeoutMs;
  throw new SdkError(
    'questions.invalid_timeout',
    `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}.`,
    { hint: 'leave timeoutMs out to wait without a limit' },
  );
}

function invalid(message: string, hint = 'fix the question named above; nothing was asked'): SdkError {
  return new SdkError('questions.invalid', message, { hint });
}
