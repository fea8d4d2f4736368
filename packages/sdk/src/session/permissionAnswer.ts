import { SdkError } from '../errors.js';
import type {
  PermissionOption,
  PermissionOptionKind,
  PermissionRequestMessage,
} from '../protocol/sessionMessage.js';
import type { RpcOutcome, SessionRpcCaller } from '../ports/rpc.js';
import type { SessionWriter } from '../stream/sessionWriter.js';
import type { SentPermissionAnswer } from '../stream/answerResult.js';

/**
 * What the user answers, in the words of `happy-session answer`: `allow` (once), `allow-session`
 * (allow always), `deny` (once) or `deny-always`. Each picks the request's option of that kind
 * (docs/protocol.md, "permission-request"); an option's own `id` picks that option.
 */
export type PermissionChoice = 'allow' | 'allow-session' | 'deny' | 'deny-always';

/** The option kind each {@link PermissionChoice} picks. */
export const CHOICE_KINDS: Readonly<Record<PermissionChoice, PermissionOptionKind>> = {
  allow: 'allow-once',
  'allow-session': 'allow-always',
  deny: 'reject-once',
  'deny-always': 'reject-always',
};

/** Which of the gate's channels an answer takes (docs/user-side.md, "What each call does"). */
export type AnswerChannels = 'both' | 'stream' | 'rpc';

/**
 * The request's option for `choice`: the option whose `id` is `choice`, else the first of the
 * kind the choice names.
 *
 * @throws {SdkError} `session.option_not_offered` when the request offers no such option.
 */
export function optionFor(
  request: PermissionRequestMessage,
  choice: PermissionChoice | string,
): PermissionOption {
  const byId = request.options.find((o) => o.id === choice);
  if (byId) return byId;
  const kind = (CHOICE_KINDS as Readonly<Record<string, PermissionOptionKind>>)[choice];
  const byKind = kind !== undefined ? request.options.find((o) => o.kind === kind) : undefined;
  if (byKind) return byKind;
  throw new SdkError(
    'session.option_not_offered',
    `The request for ${request.toolName} (call ${request.callId}) offers no option "${choice}".`,
    {
      hint: `answer with one of: ${[...new Set([...request.options.map((o) => o.id), ...choicesOffered(request)])].join(', ')}`,
      details: { callId: request.callId, options: request.options },
    },
  );
}

function choicesOffered(request: PermissionRequestMessage): PermissionChoice[] {
  return (Object.keys(CHOICE_KINDS) as PermissionChoice[]).filter((c) =>
    request.options.some((o) => o.kind === CHOICE_KINDS[c]),
  );
}

/**
 * Answers a permission request on the channels the permission gate listens to
 * (docs/architecture.md, "Permissions"): by default first the user's `permission-response` as an
 * encrypted v2 record, then the `permission` RPC with the v2 body `{callId, optionId, requestId}`
 * (docs/wire.md §7.2). The record goes first so that a gate resolves from the stream and takes the
 * RPC as `already_resolved`; the other way round the gate would record the RPC's decision itself
 * and the stream would hold two responses. The RPC is tried even when the record could not be
 * stored. `channels: 'stream'` or `'rpc'` takes one of them only.
 */
export function answerPermission(
  writer: SessionWriter,
  rpc: SessionRpcCaller,
  request: PermissionRequestMessage,
  option: PermissionOption,
  channels: AnswerChannels = 'both',
): SentPermissionAnswer {
  const recorded =
    channels === 'rpc'
      ? undefined
      : writer.append({
          role: 'user',
          type: 'permission-response',
          callId: request.callId,
          optionId: option.id,
          // Named: a call asked again (a stale preview, a re-raised request) takes only an answer
          // that names the request it answers (docs/permissions.md, "Answers name their request").
          requestId: request.id,
        });
  const call = (): Promise<RpcOutcome> =>
    rpc('permission', { callId: request.callId, optionId: option.id, requestId: request.id });
  const rpcOutcome = channels === 'stream' ? undefined : recorded ? recorded.then(call, call) : call();
  return { status: 'sent', request, option, recorded, rpc: rpcOutcome };
}
