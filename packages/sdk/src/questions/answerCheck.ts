import type { Question, QuestionAnswer } from '../protocol/sessionMessage.js';
import type { QuestionRefusal } from '../stream/answerResult.js';
import { refusal } from './answerResult.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a person's answers against the questions asked (docs/questions.md, "Answers"): every
 * question answered must exist, name only offered labels, pick one unless `multiSelect`, write
 * text only where `allowCustom`; every required question needs a label or text. Custom text is
 * trimmed and empty text dropped. Returns the answers as recorded, or the first refusal.
 */
export function checkAnswers(
  questionId: string,
  questions: readonly Question[],
  given: unknown,
): Record<string, QuestionAnswer> | QuestionRefusal {
  if (given !== undefined && !isObject(given))
    return refusal('questions.invalid_answer', 'answers must be an object keyed by question id.', questionId);
  const answers: Record<string, QuestionAnswer> = {};
  const byId = new Map(questions.map((q) => [q.id, q]));
  for (const [id, raw] of Object.entries(given ?? {})) {
    const question = byId.get(id);
    if (!question)
      return refusal('questions.unknown_question', `No question ${id.slice(0, 64)} was asked.`, questionId);
    if (!isObject(raw))
      return refusal(
        'questions.invalid_answer',
        `The answer to ${id} must be {options, custom?}.`,
        questionId,
      );
    const options = raw.options ?? [];
    if (!Array.isArray(options) || options.some((o) => typeof o !== 'string'))
      return refusal(
        'questions.invalid_answer',
        `The options of ${id} must be a list of labels.`,
        questionId,
      );
    if (raw.custom !== undefined && raw.custom !== null && typeof raw.custom !== 'string')
      return refusal('questions.invalid_answer', `The custom answer to ${id} must be text.`, questionId);
    const labels = [...new Set(options as string[])];
    const unknown = labels.find((label) => !question.options.some((o) => o.label === label));
    if (unknown !== undefined)
      return refusal(
        'questions.unknown_option',
        `Question ${id} does not offer ${JSON.stringify(unknown.slice(0, 80))}.`,
        questionId,
      );
    if (labels.length > 1 && !question.multiSelect)
      return refusal('questions.not_multi_select', `Question ${id} takes one choice.`, questionId);
    const custom = typeof raw.custom === 'string' ? raw.custom.trim() : '';
    if (custom !== '' && !question.allowCustom)
      return refusal(
        'questions.custom_not_allowed',
        `Question ${id} takes only the options offered.`,
        questionId,
      );
    if (labels.length === 0 && custom === '') continue;
    answers[id] = { options: labels, ...(custom !== '' ? { custom } : {}) };
  }
  const missing = questions.filter((q) => q.required !== false && answers[q.id] === undefined);
  if (missing.length > 0)
    return refusal(
      'questions.required_missing',
      `Required question${missing.length > 1 ? 's' : ''} left unanswered: ${missing.map((q) => q.id).join(', ')}.`,
      questionId,
    );
  return answers;
}
