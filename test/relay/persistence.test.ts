import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { b64, closeSockets, connect, http, signIn, uploadPath } from './helpers.js';

let dataDir: string;
const relays: Relay[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'relay-persist-'));
});
afterEach(async () => {
  closeSockets();
  for (const relay of relays.splice(0)) await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(dir = dataDir): Promise<Relay> {
  const relay = await startRelay({ dataDir: dir });
  relays.push(relay);
  return relay;
}

/** Every file under `dir`, with its bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });
}

/** What an SDK would send: a secretbox bundle of the JSON record (§3.1, legacy variant). */
function seal(value: unknown, key: Uint8Array): string {
  const nonce = nacl.randomBytes(24);
  const box = nacl.secretbox(Buffer.from(JSON.stringify(value)), nonce, key);
  return b64(Buffer.concat([nonce, box]));
}

describe('persistence with a data dir', () => {
  it('keeps accounts, tokens, sessions, messages and attachments across a restart', async () => {
    const keyPair = nacl.sign.keyPair();
    const first = await start();
    const { token } = await signIn(first, keyPair);
    const api = http(first, token);
    const created = (await api.post('/v1/sessions', { tag: 'persist', metadata: 'bWV0YQ==' })).body.session;
    await api.post(`/v3/sessions/${created.id}/messages`, {
      messages: [
        { content: 'b25l', localId: 'l1' },
        { content: 'dHdv', localId: 'l2' },
      ],
    });
    const agent = await connect(first, { token, clientType: 'session-scoped', sessionId: created.id });
    await agent.emitWithAck('update-state', { sid: created.id, agentState: 'c3RhdGU=', expectedVersion: 0 });
    agent.close();
    const attachment = await uploadPath(first, token, created.id);
    expect((await api.put(attachment, new Uint8Array([1, 2, 3, 4]))).status).toBe(200);
    await first.close();

    const second = await start();
    const again = http(second, token);
    const [session] = (await again.get('/v1/sessions')).body.sessions;
    expect(session).toMatchObject({
      id: created.id,
      metadata: 'bWV0YQ==',
      seq: 2,
      agentState: 'c3RhdGU=',
      agentStateVersion: 1,
    });
    const messages = (await again.get(`/v3/sessions/${created.id}/messages`)).body.messages;
    expect(messages.map((m: { seq: number; content: { c: string } }) => [m.seq, m.content.c])).toEqual([
      [1, 'b25l'],
      [2, 'dHdv'],
    ]);
    expect((await again.bytes(attachment)).bytes).toEqual(Buffer.from([1, 2, 3, 4]));
    // Seqs continue, retries stay idempotent, and the same key is still the same account.
    const more = await again.post(`/v3/sessions/${created.id}/messages`, {
      messages: [
        { content: 'dHdv', localId: 'l2' },
        { content: 'dGhyZWU=', localId: 'l3' },
      ],
    });
    expect(more.body.messages.map((m: { seq: number }) => m.seq)).toEqual([2, 3]);
    const reSignedIn = await signIn(second, keyPair);
    const loaded = await http(second, reSignedIn.token).post('/v1/sessions', {
      tag: 'persist',
      metadata: 'AA==',
    });
    expect(loaded.body.session.id).toBe(created.id);
    // The old token opens a socket on the restarted relay too.
    const socket = await connect(second, { token, clientType: 'user-scoped' });
    expect(socket.connected).toBe(true);
  });

  it('does not accept tokens of a relay with another data dir', async () => {
    const first = await start();
    const { token } = await signIn(first);
    const otherDir = mkdtempSync(join(tmpdir(), 'relay-persist-other-'));
    try {
      const other = await start(otherDir);
      expect(await http(other, token).get('/v1/sessions')).toMatchObject({
        status: 401,
        body: { error: 'Invalid token' },
      });
    } finally {
      for (const relay of relays.splice(0)) await relay.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('stores exactly the ciphertext it was sent and never the plaintext', async () => {
    const marker = `PLAINTEXT-MARKER-${b64(nacl.randomBytes(9))}`;
    const key = nacl.randomBytes(32);
    const relay = await start();
    const { token } = await signIn(relay);
    const api = http(relay, token);

    const metadata = seal({ path: '/tmp', host: 'box', summary: { text: marker, updatedAt: 1 } }, key);
    const session = (await api.post('/v1/sessions', { tag: 'secret', metadata })).body.session;
    const records = [1, 2, 3].map((n) =>
      seal({ role: 'agent', content: { type: 'text', text: `${marker}-${n}` } }, key),
    );
    await api.post(`/v3/sessions/${session.id}/messages`, {
      messages: records.map((content, i) => ({ content, localId: `m${i}` })),
    });
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId: session.id });
    const agentState = seal({ requests: { t1: { tool: 'Bash', arguments: { command: marker } } } }, key);
    await agent.emitWithAck('update-state', { sid: session.id, agentState, expectedVersion: 0 });
    agent.emit('message', { sid: session.id, message: seal({ text: marker }, key), localId: 'legacy' });
    await agent.emitWithAck('ping');

    const nonce = nacl.randomBytes(24);
    const blob = Buffer.concat([nonce, nacl.secretbox(Buffer.from(`${marker}-image-bytes`), nonce, key)]);
    const upload = await api.post(`/v1/sessions/${session.id}/attachments/request-upload`, {
      filename: `${marker}.png`,
      size: blob.length,
    });
    await api.put(new URL(upload.body.uploadUrl as string).pathname, blob);
    await relay.close();

    const files = filesUnder(dataDir);
    for (const file of files) {
      expect(file.bytes.includes(Buffer.from(marker)), `${file.path} holds the plaintext marker`).toBe(false);
    }
    const database = Buffer.concat(files.filter((f) => f.path.includes('relay.sqlite')).map((f) => f.bytes));
    for (const ciphertext of [metadata, agentState, ...records]) {
      expect(database.includes(Buffer.from(ciphertext))).toBe(true);
    }
    const stored = files.filter((f) => f.path.startsWith(join(dataDir, 'attachments')));
    expect(stored).toHaveLength(1);
    expect(stored[0]?.bytes.equals(blob)).toBe(true);
    expect(stored[0]?.path.endsWith(upload.body.ref.split('/').at(-1))).toBe(true);
  });
});
