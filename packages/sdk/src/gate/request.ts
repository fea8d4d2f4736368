import { Wait } from '../ports/wait.js';
import type { PermissionOption, PermissionRequestMessage } from '../protocol/sessionMessage.js';
import type { GatedCall } from '../stream/gatePorts.js';
import type { PermissionDecision } from '../stream/plugins.js';

/**
 * One permission request as the gate's arbiter holds it: what an answer is judged against
 * (docs/permissions.md, "One arbitration"), whether the request is this process's own or one the
 * stream holds from an earlier process.
 */
export interface RequestItem {
  readonly callId: string;
  readonly toolName: string;
  /** The arguments the request showed (frozen). */
  readonly args: Readonly<Record<string, unknown>>;
  /** The adapter's tool kind, if it gave one. */
  readonly kind: string | undefined;
  /** `false` when the call opted out of redaction. */
  readonly redact: boolean | undefined;
  readonly options: readonly PermissionOption[];
  /**
   * The id of the `permission-request` record: what an answer names (`requestId`, the legacy
   * `id`). Undefined for a call the policy decided at once, which asked nobody.
   */
  readonly recordId: string | undefined;
  /** True when no earlier request was made for this call: only then may an answer name no request. */
  readonly firstForCall: boolean;
  readonly createdAt: number;
  /** This process's request, with its call and waiter; undefined for one read from the stream. */
  readonly live: LiveRequest | undefined;
  /** The `permission-request` record of a request read from the stream (where its notes go). */
  readonly recorded?: PermissionRequestMessage;
}

/**
 * The part of a request only the process that asked has: the call, the waiter of
 * `requestPermission()`, and where its record stands in the stream.
 */
export class LiveRequest {
  readonly wait = new Wait<PermissionDecision>();
  /** The request record's `seq`, once known (undefined while unknown or when it was not stored). */
  storedSeq: number | undefined;

  constructor(
    readonly call: GatedCall,
    /**
     * Settles with the `seq` of the appended `permission-request` once the server stored it, or
     * `undefined` when it was not stored. Stream answers are ordered against it.
     */
    readonly requestSeq: Promise<number | undefined>,
  ) {
    void requestSeq.then((seq) => (this.storedSeq = seq));
  }
}

/** The item of a call this process asks about (or decides at once by policy, `recordId` undefined). */
export function liveRequest(
  call: GatedCall,
  options: readonly PermissionOption[],
  fields: { recordId: string | undefined; firstForCall: boolean; requestSeq: Promise<number | undefined> },
): RequestItem & { readonly live: LiveRequest } {
  return {
    callId: call.callId,
    toolName: call.toolName,
    args: call.args,
    kind: call.kind,
    redact: call.redact,
    options,
    recordId: fields.recordId,
    firstForCall: fields.firstForCall,
    createdAt: Date.now(),
    live: new LiveRequest(call, fields.requestSeq),
  };
}

/** The item of a request the stream holds from an earlier process. */
export function recordedRequest(message: PermissionRequestMessage, firstForCall: boolean): RequestItem {
  return {
    callId: message.callId,
    toolName: message.toolName,
    args: message.args ?? {},
    kind: undefined,
    // Its arguments are the ones the stream shows (redacted already): an edit is taken as written.
    redact: false,
    options: message.options,
    recordId: message.id,
    firstForCall,
    createdAt: message.time,
    live: undefined,
    recorded: message,
  };
}
