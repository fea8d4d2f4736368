import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptRecord } from 'happy-session/crypto';
import { encryptRecordBase64 } from 'happy-session/internal';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayWithAccount } from './helpers.js';
import type { RelayAccount } from './helpers.js';

/**
 * Session RPC refuses parameters larger than one socket.io packet before decrypting or parsing
 * them: a server whose packet limit is larger than socket.io's default (the relay's is the
 * default, so such a request is handed to the session's socket here as the server would deliver
 * it) must not let one request block the agent. Parameters within it are answered as before.
 */
let account: RelayAccount;
let session: Session;
beforeAll(async () => {
  account = await relayWithAccount();
  session = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    permissions: false,
    shutdownSignals: false,
  });
});
afterAll(async () => {
  await session.close();
  await account.relay.close();
});

/** An `rpc-request` as the server delivers it to the session's socket; the decrypted answer. */
async function deliver(method: string, params: string): Promise<unknown> {
  const socket = session.transport.socket.socket;
  const answer = await new Promise<string>((resolve) => {
    for (const listener of socket.listeners('rpc-request'))
      (listener as (payload: unknown, ack: (a: string) => void) => void)(
        { method: `${session.id}:${method}`, params },
        resolve,
      );
  });
  const opened = await decryptRecord(answer, session.key);
  return opened.ok ? opened.value : opened.error;
}

describe('RPC parameters larger than a packet', () => {
  it('are refused with an error answer, and the handler never runs', async () => {
    let ran = 0;
    session.rpc.register('echo', (params) => {
      ran += 1;
      return params;
    });
    const huge = await encryptRecordBase64({ text: 'x'.repeat(1_200_000) }, session.key);
    expect(await deliver('echo', huge)).toEqual({ error: 'Parameters too large' });
    expect(ran).toBe(0);
  });

  it('positive control: parameters within a packet are answered', async () => {
    session.rpc.register('echo2', (params) => params);
    const fits = await encryptRecordBase64({ text: 'x'.repeat(500_000) }, session.key);
    expect(await deliver('echo2', fits)).toEqual({ text: 'x'.repeat(500_000) });
  });
});
