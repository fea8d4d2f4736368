import type { Answering, GateSettlement } from './answering.js';
import type { PermissionBroker } from './broker.js';
import type { StreamInput } from './gateOptions.js';
import { PendingRequest } from './pendingRequest.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';

/** What the stream channel needs of its gate. */
export interface StreamChannelDeps {
  readonly broker: PermissionBroker;
  readonly answering: Answering;
  readonly gate: GateSettlement;
  /** Whether remote answers are accepted right now. */
  readonly remoteAllowed: () => boolean;
}

/**
 * The stream channel (docs/permissions.md, "How the gate is built"): user-role `permission-response` records
 * that other clients append. An answer counts only once its request's record is stored and only
 * if it comes after it (`seq`); the agent's own records are skipped.
 */
export class StreamChannel {
  constructor(private readonly deps: StreamChannelDeps) {}

  /** Reads one record; resolves with what the answer got (`undefined` for other messages). */
  async read(input: StreamInput): Promise<RespondResult | undefined> {
    const message = input?.message;
    if (message?.type !== 'permission-response' || message.role !== 'user') return undefined;
    const { broker, answering } = this.deps;
    const found = broker.lookup(message.callId);
    if (!found)
      return refuse('permissions.unknown_request', `No permission request for call ${message.callId}.`);
    if (!(found instanceof PendingRequest)) return answering.lateAnswer(found, message);
    const requestSeq = found.storedSeq ?? (await found.requestSeq);
    if (broker.lookup(message.callId) !== found) {
      const now = broker.lookup(message.callId);
      return now && !(now instanceof PendingRequest) ? answering.lateAnswer(now, message) : undefined;
    }
    if (requestSeq === undefined || !(input.seq > requestSeq)) {
      // Appended before its request (or the request never reached the stream): replay ignores it too.
      return refuse(
        'permissions.unknown_request',
        `The answer to call ${message.callId} was appended before its request.`,
      );
    }
    // Every user record is a person's answer, whatever its `via` says: only the gate's own sealed
    // records are the agent's (docs/permissions.md, "The agent's own records").
    if (!this.deps.remoteAllowed())
      return refuse('permissions.not_allowed', 'Remote answers are not accepted right now.');
    return answering.apply({
      callId: message.callId,
      optionId: message.optionId,
      via: 'stream',
      ...(message.requestId !== undefined ? { requestId: message.requestId } : {}),
      ...(message.updatedInput !== undefined ? { updatedInput: message.updatedInput } : {}),
      record: { id: message.id, time: message.time, seq: input.seq },
    });
  }
}
