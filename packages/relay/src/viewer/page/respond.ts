import { decryptRecord, encryptRecordBase64 } from 'happy-session/crypto';
import { newId, parseSessionMessage, SdkError } from 'happy-session';
import type { PermissionRequestMessage, PermissionResponseMessage } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import type { ViewerApi } from './api.js';
import type { ViewerSocket } from './updates.js';

/** What happened to the RPC half of an answer; the stream half either succeeded or threw. */
export type RpcOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * Answers permission requests of one session the way the protocol asks a UI to (session-protocol-v2
 * "How Permissions Change"; docs/wire.md §7): it appends the user's `permission-response` to the
 * stream (the audit record, and how an agent that reads the stream learns it) and calls the
 * agent's `permission` RPC with `{callId, optionId}` (the real-time path). An agent's gate takes the
 * first of the two and answers the other as already resolved.
 */
export class PermissionResponder {
  private readonly mine = new Set<string>();

  constructor(
    private readonly api: ViewerApi,
    private readonly socket: ViewerSocket,
    private readonly sessionId: string,
    private readonly key: RecordKey,
  ) {}

  /** True when `response` was sent from this page. */
  isMine(response: PermissionResponseMessage): boolean {
    return this.mine.has(response.id);
  }

  /**
   * Records the answer, then calls the RPC. Rejects only when the answer could not be stored; an
   * RPC that fails (no agent online, an error from its handler) is reported in the outcome, since
   * the stored answer still reaches an agent that reads the stream.
   */
  async respond(request: PermissionRequestMessage, optionId: string): Promise<RpcOutcome> {
    const parsed = parseSessionMessage({
      id: newId(),
      time: Date.now(),
      role: 'user',
      type: 'permission-response',
      callId: request.callId,
      optionId,
    });
    if (!parsed.ok) throw new SdkError('viewer.invalid_response', parsed.error.message);
    const response = parsed.value;
    this.mine.add(response.id);
    const content = await encryptRecordBase64(response, this.key);
    await this.api.appendMessages(this.sessionId, [{ content, localId: response.id }]);

    const params = await encryptRecordBase64({ callId: request.callId, optionId }, this.key);
    const answer = await this.socket.call(`${this.sessionId}:permission`, params);
    if (!answer.ok) return { ok: false, error: answer.error };
    if (typeof answer.result !== 'string') return { ok: true };
    const result = await decryptRecord(answer.result, this.key);
    const error = result.ok ? (result.value as { error?: unknown } | null)?.error : undefined;
    return typeof error === 'string' ? { ok: false, error } : { ok: true };
  }
}
