import { SdkError } from 'happy-session';
import type { QuestionAnswer } from 'happy-session';
import type { Question, QuestionMessage } from 'happy-session/protocol';
import type { QuestionReply, SentQuestionReply, UserSession } from 'happy-session/user';
import type { CliErrorCode } from '../errorCodes.js';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import type { Terminal } from '../terminal.js';
import { oneLine } from '../transcript.js';

/** Options of `happy-session answer <session> <questionId> …`. */
export interface AnswerQuestionOptions {
  /** Dismiss the question instead of answering it. */
  readonly cancel?: boolean;
  readonly json?: boolean;
}

/**
 * Answers one of the agent's questions as today's app does (the `communication` RPC,
 * docs/questions.md, "Answering"). `words` are the answers: for a single question the option
 * labels (several for a multi-choice question) or the person's own text; for a form of several,
 * `<questionId>=<label>[,<label>…]` or `<questionId>=<text>`. With no words on a terminal, it asks
 * each question in turn.
 *
 * @returns 0 when the agent took the answer; 1 when it refused it (the reason is printed).
 */
export async function answerQuestionCommand(
  session: UserSession,
  question: QuestionMessage,
  words: readonly string[],
  options: AnswerQuestionOptions,
  print: Print,
  terminal: Terminal | undefined,
): Promise<ExitCode> {
  let reply: QuestionReply;
  if (options.cancel) reply = 'cancelled';
  else if (words.length > 0) reply = replyFromWords(question, words);
  else if (terminal?.isTTY) reply = await promptFor(question, terminal);
  else {
    for (const line of describeQuestion(question)) print(line);
    throw new SdkError<CliErrorCode>('cli.usage', 'Say the answer, or run this on a terminal to be asked.', {
      hint: `happy-session answer <session> ${question.questionId} <answer>`,
    });
  }
  const sent = await session.answerQuestion(question.questionId, reply);
  print(options.json ? JSON.stringify(sent) : describeSent(sent));
  return sent.status === 'applied' ? EXIT.ok : EXIT.failure;
}

/** The question in lines, with how to answer it. */
export function describeQuestion(question: QuestionMessage): string[] {
  const lines = [`${question.questionId}  ${oneLine(question.title ?? question.questions[0]!.question)}`];
  for (const q of question.questions) {
    const kind = q.options.length === 0 ? 'your own text' : q.multiSelect ? 'one or more of' : 'one of';
    const offered = q.options.map((o) => o.label).join(' | ');
    lines.push(
      `  ${q.id}: ${oneLine(q.question)} (${kind}${offered ? ` ${offered}` : ''}${q.options.length > 0 && q.allowCustom ? ', or your own text' : ''}${q.required === false ? '; optional' : ''})`,
    );
  }
  return lines;
}

/** Reads the words given on the command line as the reply. */
export function replyFromWords(question: QuestionMessage, words: readonly string[]): QuestionReply {
  const keyed = words.every((w) => /^[^=\s]+=/.test(w));
  if (question.questions.length === 1 && !keyed) {
    const only = question.questions[0]!;
    return { [only.id]: answerOf(only, only.multiSelect ? words.flatMap(splitList) : [words.join(' ')]) };
  }
  const answers: Record<string, Partial<QuestionAnswer>> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    if (at <= 0)
      throw new SdkError<CliErrorCode>('cli.usage', `"${word}" does not say which question it answers.`, {
        hint: 'write <questionId>=<answer> for each question of the form',
      });
    const id = word.slice(0, at);
    const value = word.slice(at + 1);
    const asked = question.questions.find((q) => q.id === id);
    answers[id] = asked
      ? answerOf(asked, asked.multiSelect ? splitList(value) : [value])
      : { options: [value] };
  }
  return answers;
}

/** Labels the question offers become options; anything else is the person's own text. */
function answerOf(question: Question, values: readonly string[]): Partial<QuestionAnswer> {
  const options: string[] = [];
  const own: string[] = [];
  for (const value of values) {
    const label = question.options.find((o) => o.label.toLowerCase() === value.trim().toLowerCase())?.label;
    if (label !== undefined) options.push(label);
    else if (value.trim() !== '') own.push(value.trim());
  }
  // Text where only options are offered goes as an option: the agent refuses it with its reason.
  if (!question.allowCustom) return { options: [...options, ...own] };
  return { options, ...(own.length > 0 ? { custom: own.join(', ') } : {}) };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Asks each question on the terminal: a number (or several) picks options, other text is the answer. */
async function promptFor(question: QuestionMessage, terminal: Terminal): Promise<QuestionReply> {
  const answers: Record<string, Partial<QuestionAnswer>> = {};
  if (question.title) terminal.write(`${question.title}\r\n`);
  for (const q of question.questions) {
    terminal.write(`\r\n${q.header !== q.question ? `${q.header}: ` : ''}${q.question}\r\n`);
    q.options.forEach((o, i) =>
      terminal.write(`  ${i + 1}) ${o.label}${o.description ? ` (${o.description})` : ''}\r\n`),
    );
    const how = [
      q.options.length > 0 ? (q.multiSelect ? 'numbers, separated by commas' : 'a number') : '',
      q.allowCustom ? 'your own text' : '',
    ].filter(Boolean);
    terminal.write(`${how.join(' or ')}${q.required === false ? ' (Enter to skip)' : ''}: `);
    const line = await readLine(terminal);
    const picks = splitList(line);
    const numbers = picks.map((p) => (/^\d+$/.test(p) ? q.options[Number(p) - 1]?.label : undefined));
    answers[q.id] =
      picks.length > 0 && numbers.every((n) => n !== undefined)
        ? { options: numbers as string[] }
        : answerOf(q, [line]);
  }
  return answers;
}

/** One line typed on the terminal (raw keys, echoed), until Enter. */
function readLine(terminal: Terminal): Promise<string> {
  return new Promise((resolve) => {
    let line = '';
    const stop = terminal.onKeys((keys) => {
      for (const key of keys) {
        if (key === '\r' || key === '\n') {
          stop();
          terminal.write('\r\n');
          resolve(line);
          return;
        }
        if (key === '\x7f') {
          line = line.slice(0, -1);
          terminal.write('\b \b');
        } else if (key >= ' ') {
          line += key;
          terminal.write(key);
        }
      }
    });
  });
}

function describeSent(sent: SentQuestionReply): string {
  if (sent.status === 'applied') {
    const result = sent.result;
    if (result.status !== 'answered') return `Dismissed question ${sent.questionId}; the agent took it.`;
    const parts = Object.entries(result.answers).map(
      ([id, a]) => `${id}: ${[...a.options, ...(a.custom !== undefined ? [a.custom] : [])].join(', ')}`,
    );
    return `Answered question ${sent.questionId} (${parts.join('; ')}); the agent took it.`;
  }
  if (sent.status === 'unreachable') return `Not delivered: ${sent.error}`;
  if (sent.status === 'recorded')
    return `No agent is running (${sent.error}); the answer to question ${sent.questionId} is stored (seq ${sent.delivered.seq}) for the next agent process.`;
  return `Refused (${sent.code}): ${sent.message}`;
}
