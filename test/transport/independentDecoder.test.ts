/**
 * Reads back a session written through the SDK with nothing of the SDK's transport: plain fetch
 * and the crypto module, following the wire spec (docs/wire.md §1.2, §3, §4.1, §5.2).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { deriveAccountKeys, unwrapDataKey, decryptRecord } from 'happy-session/crypto';
import { authChallengeBody, randomBytes } from 'happy-session/internal';
import type { SessionMessage } from 'happy-session';
import type { Relay } from 'happy-session-relay';
import { startRelay } from 'happy-session-relay';
import { connect } from 'happy-session/node';

let relay: Relay;
beforeAll(async () => {
  relay = await startRelay();
});
afterAll(() => relay.close());

interface WireMessage {
  seq: number;
  content: { t: string; c: string };
}
interface WireSession {
  id: string;
  metadata: string;
  dataEncryptionKey: string;
}

async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, init);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

test('an independent decoder (raw HTTP + crypto) reads exactly what the SDK wrote', async () => {
  const masterSecret = randomBytes(32);
  const session = await connect({
    server: relay.url,
    credentials: { kind: 'master', masterSecret },
    title: 'decoded',
  });
  const written: SessionMessage[] = [];
  session.writer.messages$.subscribe((m) => written.push(m));
  const turn = session.turn();
  turn.text('Looking at the repo');
  const call = turn.toolCall({ toolName: 'bash', args: { command: 'ls -la' } });
  call.end();
  for (let i = 0; i < 130; i++) turn.text(`chunk ${i}`);
  turn.end();
  await session.close();

  // 1. Token by the challenge flow.
  const { token } = await json<{ token: string }>(`${relay.url}/v1/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(authChallengeBody(masterSecret)),
  });
  const auth = { authorization: `Bearer ${token}` };
  // 2. The session, its wrapped key unwrapped with the account's content secret key.
  const { sessions } = await json<{ sessions: WireSession[] }>(`${relay.url}/v1/sessions`, { headers: auth });
  expect(sessions).toHaveLength(1);
  const row = sessions[0]!;
  const unwrapped = unwrapDataKey(row.dataEncryptionKey, deriveAccountKeys(masterSecret).content.secretKey);
  if (!unwrapped.ok) throw new Error(unwrapped.error.message);
  const key = { variant: 'dataKey' as const, key: unwrapped.value };
  const metadata = await decryptRecord(row.metadata, key);
  expect(metadata.ok && metadata.value).toMatchObject({ summary: { text: 'decoded' } });
  // 3. Every message, page by page, decrypted.
  const decoded: unknown[] = [];
  let after = 0;
  for (;;) {
    const page = await json<{ messages: WireMessage[]; hasMore: boolean }>(
      `${relay.url}/v3/sessions/${row.id}/messages?after_seq=${after}&limit=50`,
      {
        headers: auth,
      },
    );
    for (const m of page.messages) {
      expect(m.content.t).toBe('encrypted');
      const value = await decryptRecord(m.content.c, key);
      if (!value.ok) throw new Error(value.error.message);
      decoded.push(value.value);
      after = m.seq;
    }
    if (!page.hasMore) break;
  }
  expect(decoded).toEqual(written);
  expect(decoded).toHaveLength(135);
});
