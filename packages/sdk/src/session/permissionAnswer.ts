import type { PermissionOption, PermissionRequestMessage } from '../protocol/sessionMessage.js';
import type { Delivered } from '../stream/types.js';
import { callSessionRpc } from '../transport/sessionRpc.js';
import type { RpcOutcome } from '../transport/sessionRpc.js';
import type { UserSession } from './userSession.js';

/** An answer on its way: the stream record and the RPC settle separately. */
export interface SentPermissionAnswer {
  readonly request: PermissionRequestMessage;
  readonly option: PermissionOption;
  /** Settles once the user's `permission-response` is stored in the stream. */
  readonly recorded: Promise<Delivered>;
  /** The `permission` RPC's outcome; `RPC method not available` when the agent has no gate. */
  readonly rpc: Promise<RpcOutcome>;
}

/**
 * Answers a permission request on both channels the permission gate listens to
 * (docs/architecture.md, "Permissions"): first the user's `permission-response` as an encrypted v2
 * record, then the `permission` RPC with the v2 body `{callId, optionId}` (docs/wire.md §7.2).
 * The record goes first so that a gate resolves from the stream and takes the RPC as
 * `already_resolved`; the other way round the gate would record the RPC's decision itself and the
 * stream would hold two responses. The RPC is tried even when the record could not be stored.
 */
export function answerPermission(
  session: UserSession,
  request: PermissionRequestMessage,
  option: PermissionOption,
): SentPermissionAnswer {
  const recorded = session.writer.append({
    role: 'user',
    type: 'permission-response',
    callId: request.callId,
    optionId: option.id,
  });
  const call = (): Promise<RpcOutcome> =>
    callSessionRpc(session.socket, session.id, session.key, 'permission', {
      callId: request.callId,
      optionId: option.id,
    });
  return { request, option, recorded, rpc: recorded.then(call, call) };
}
