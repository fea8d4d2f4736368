import type { Socket } from 'socket.io-client';
import { decryptRecord, encryptRecordBase64 } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { RpcOutcome } from '../ports/rpc.js';

/**
 * Calls `<sessionId>:<method>` over a user-scoped socket as the app does (docs/wire.md §7.1):
 * params encrypted with the session key, result decrypted with it. Never throws: the server's
 * `{ok:false, error}` (`RPC method not available` when no agent registered the method within its
 * 15 s grace), a time-out or an undecryptable result come back as `ok: false`.
 */
export async function callSessionRpc(
  socket: Pick<Socket, 'timeout'>,
  sessionId: string,
  key: RecordKey,
  method: string,
  params: unknown,
  timeoutMs = 30_000,
): Promise<RpcOutcome> {
  let answer: { ok?: unknown; result?: unknown; error?: unknown };
  try {
    answer = (await socket.timeout(timeoutMs).emitWithAck('rpc-call', {
      method: `${sessionId}:${method}`,
      params: await encryptRecordBase64(params, key),
    })) as typeof answer;
  } catch {
    return { ok: false, error: `no answer within ${timeoutMs} ms` };
  }
  if (answer?.ok !== true) {
    return { ok: false, error: typeof answer?.error === 'string' ? answer.error : 'RPC call failed' };
  }
  if (typeof answer.result !== 'string') return { ok: true, result: null };
  const decrypted = await decryptRecord(answer.result, key);
  return decrypted.ok
    ? { ok: true, result: decrypted.value }
    : { ok: false, error: `the result does not decrypt (${decrypted.error.code})` };
}
