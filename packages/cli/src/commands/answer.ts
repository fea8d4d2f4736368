import { SdkError } from 'happy-session';
import type { PermissionPreview } from 'happy-session';
import type { PermissionRequestMessage, QuestionMessage } from 'happy-session/protocol';
import type { SentPermissionAnswer, UserSession } from 'happy-session/user';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import { describeRpc } from '../rpcOutcome.js';
import { oneLine } from '../transcript.js';
import { previewLines } from '../previewLines.js';
import { withUserSession } from './context.js';
import type { CommandContext } from './context.js';
import type { Terminal } from '../terminal.js';
import { answerQuestionCommand, describeQuestion } from './answerQuestion.js';
import type { CliErrorCode } from '../errorCodes.js';

/** The answers `answer` takes besides an option's own id. */
export const CHOICES = ['allow', 'allow-session', 'deny', 'deny-always'] as const;

/** Options of `happy-session answer`. */
export interface AnswerCommandOptions {
  readonly server?: string;
  /** Answer every pending request with the choice. */
  readonly all?: boolean;
  /** `both` (default): the stream record, then the RPC; or one of them. */
  readonly via?: 'both' | 'stream' | 'rpc';
  /** Print JSON: the pending requests, or one line per answer. */
  readonly json?: boolean;
  /** For a question: dismiss it. */
  readonly cancel?: boolean;
}

/** What became of one answer. */
interface AnswerOutcome {
  readonly callId: string;
  readonly toolName: string;
  readonly title: string;
  readonly optionId: string;
  readonly kind: string;
  /** The seq of the stored `permission-response`, or why it is not stored; null when not sent. */
  readonly recorded: { readonly seq: number } | { readonly error: string } | null;
  /** What the agent's `permission` RPC answered; null when not sent. */
  readonly rpc: string | null;
  /** What the request's preview said would land on allow, as the listing has it; only when it has one. */
  readonly preview?: PermissionPreview;
}

/**
 * `happy-session answer <session> [callId] [choice]`: answers the agent's permission requests the
 * way the app's buttons do (`UserSession.answer`): the user's `permission-response` in the stream,
 * then the `permission` RPC. `choice` is `allow`, `allow-session`, `deny`, `deny-always` or an
 * option's id. With `--all`, every pending request gets the choice (batch approval). With no call
 * id, it lists the pending requests.
 *
 * @returns 0 when every answer reached the agent by at least one channel; 1 otherwise.
 * @throws {SdkError} `session.request_not_pending`, `session.option_not_offered`; `cli.bad_choice`
 *   for `--all` without a choice.
 */
export async function answerCommand(
  sessionId: string,
  callId: string | undefined,
  words: string | readonly string[] | undefined,
  options: AnswerCommandOptions,
  print: Print,
  context: CommandContext & { readonly terminal?: Terminal } = {},
): Promise<ExitCode> {
  const rest = words === undefined ? [] : typeof words === 'string' ? [words] : words;
  const choice = rest[0];
  if (callId !== undefined && !options.all) {
    // A question's id: the rest are its answers (docs/questions.md, "Answering").
    const asked = await withUserSession(sessionId, options.server, context, async (session) => {
      const question = (await session.questions()).find((q) => q.questionId === callId);
      return question
        ? answerQuestionCommand(session, question, rest, options, print, context.terminal)
        : undefined;
    });
    if (asked !== undefined) return asked;
  }
  // `answer <session> --all allow`: the one word given is the choice.
  const [target, picked] = options.all ? [undefined, choice ?? callId] : [callId, choice];
  if ((options.all || target !== undefined) && picked === undefined) {
    throw new SdkError<CliErrorCode>(
      'cli.bad_choice',
      'Say what to answer: allow, allow-session, deny or deny-always.',
      {
        hint: options.all
          ? 'happy-session answer <session> --all allow'
          : 'happy-session answer <session> <callId> allow',
      },
    );
  }
  return withUserSession(sessionId, options.server, context, async (session) => {
    if (target === undefined && !options.all) return listPending(session, options, print);
    const channels = { channels: options.via ?? 'both' } as const;
    const sent = options.all
      ? await session.answerAll(picked!, channels)
      : [await session.answer(target!, picked!, channels)].filter((a) => a.status === 'sent');
    if (sent.length === 0 && !options.json) print('No permission request is waiting.');
    const outcomes = await Promise.all(sent.map(settle));
    for (const [i, outcome] of outcomes.entries()) {
      if (options.json) {
        print(JSON.stringify(outcome));
        continue;
      }
      print(describe(outcome, session.format));
      // What was decided on, as the listing showed it: the person answering by id may never have listed it.
      for (const line of previewLines(sent[i]!.request)) print(line);
    }
    const reached = outcomes.every((o) => (o.recorded !== null && 'seq' in o.recorded) || isApplied(o.rpc));
    return reached ? EXIT.ok : EXIT.failure;
  });
}

async function listPending(
  session: UserSession,
  options: AnswerCommandOptions,
  print: Print,
): Promise<ExitCode> {
  const [pending, questions] = await Promise.all([session.pending(), session.questions()]);
  if (options.json) {
    print(JSON.stringify([...pending.map(requestJson), ...questions.map(questionJson)]));
    return EXIT.ok;
  }
  for (const question of questions) for (const line of describeQuestion(question)) print(line);
  if (pending.length === 0) {
    if (questions.length === 0) print('No permission request is waiting.');
    return EXIT.ok;
  }
  for (const request of pending) {
    print(`${request.callId}  ${request.toolName}: ${oneLine(request.title)}`);
    for (const line of previewLines(request)) print(line);
    print(`  answer with: ${request.options.map((o) => `${o.id} (${o.label})`).join(', ')}`);
  }
  return EXIT.ok;
}

/**
 * One waiting request in `answer --json`'s list (docs/cli.md, "answer"): `kind: 'permission'`,
 * `id` what answers may name besides `callId` (in a v1 session, the request's agentState key).
 */
function requestJson(request: PermissionRequestMessage): Record<string, unknown> {
  const { id, callId, toolName, title, args, options, preview } = request;
  return {
    kind: 'permission',
    id,
    callId,
    toolName,
    title,
    ...(args ? { args } : {}),
    options,
    ...(preview ? { preview } : {}),
  };
}

/** One waiting question in the same list: `kind: 'question'`, answered by its `questionId`. */
function questionJson(question: QuestionMessage): Record<string, unknown> {
  const { questionId, title, questions } = question;
  return { kind: 'question', questionId, ...(title !== undefined ? { title } : {}), questions };
}

async function settle(answer: SentPermissionAnswer): Promise<AnswerOutcome> {
  const [recorded, rpc] = await Promise.all([
    answer.recorded?.then(
      (delivered) => ({ seq: delivered.seq }),
      (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
    ) ?? null,
    answer.rpc?.then(describeRpc) ?? null,
  ]);
  const { callId, toolName, title, preview } = answer.request;
  return {
    callId,
    toolName,
    title,
    optionId: answer.option.id,
    kind: answer.option.kind,
    recorded,
    rpc,
    ...(preview ? { preview } : {}),
  };
}

function isApplied(rpc: string | null): boolean {
  return rpc === 'applied' || rpc === 'already resolved' || rpc === 'delivered';
}

/** What the answer was, in words: `allow-once` is "Allowed once". */
const CHOSEN: Readonly<Record<string, string>> = {
  'allow-once': 'Allowed once',
  'allow-always': 'Allowed for the session',
  'reject-once': 'Denied',
  'reject-always': 'Denied always',
};

/**
 * One answer in words: what was chosen for which call, and how it reached the agent. An agent
 * that reads answers from the stream only (`run --ask`, any agent without the RPC) is told by
 * the stored record; its RPC's refusal is then no failure and is not shown as one.
 */
function describe(o: AnswerOutcome, format: 'v1' | 'v2'): string {
  const what = `${CHOSEN[o.kind] ?? o.optionId}: ${oneLine(o.title)} (call ${o.callId})`;
  // A v1 session holds no answer records: the RPC, as the app sends it, is the one channel.
  if (format === 'v1')
    return isApplied(o.rpc)
      ? `${what}. The agent took it.`
      : `${what}. Not delivered: the permission RPC ${o.rpc ?? 'was not sent'}.`;
  const stored = o.recorded !== null && 'seq' in o.recorded ? o.recorded.seq : undefined;
  const took = isApplied(o.rpc);
  if (stored !== undefined && took)
    return `${what}. Recorded in the stream (seq ${stored}); the agent took it.`;
  if (stored !== undefined)
    return `${what}. Recorded in the stream (seq ${stored}); the agent reads it from there${o.rpc === null ? '' : ' (it takes no answer by RPC)'}.`;
  const why =
    o.recorded === null
      ? 'not sent to the stream'
      : `not recorded in the stream: ${'error' in o.recorded ? o.recorded.error : ''}`;
  if (took) return `${what}. The agent took it by RPC (${why}).`;
  return `${what}. Not delivered: ${why}; the permission RPC ${o.rpc ?? 'was not sent'}.`;
}
