import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAttachmentStore } from '../../packages/relay/src/attachments.js';
import { openDatabase } from '../../packages/relay/src/db.js';
import { startRelay, type Relay, type RelayOptions } from '../../packages/relay/src/index.js';
import { createSession, http, signIn } from './helpers.js';

const TEN_MB = 10 * 1024 * 1024;

let relay: Relay | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await relay?.close();
  relay = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'relay-attachments-'));
  dirs.push(dir);
  return dir;
}

async function setup(options: RelayOptions = {}) {
  relay = await startRelay(options);
  const { token } = await signIn(relay);
  const sessionId = (await createSession(relay, token)).id as string;
  return { relay, token, sessionId, api: http(relay, token) };
}

describe.each([
  ['in memory', () => ({})],
  ['with a data dir', () => ({ dataDir: tempDir() })],
])('attachments %s (§8)', (_name, options) => {
  it('round-trips the encrypted bytes through request-upload, PUT, request-download and GET', async () => {
    const { relay, sessionId, api } = await setup(options());
    const blob = nacl.randomBytes(64 * 1024);
    const upload = await api.post(`/v1/sessions/${sessionId}/attachments/request-upload`, {
      filename: '../../etc/passwd',
      size: blob.length,
    });
    expect(upload.status).toBe(200);
    expect(upload.body).toEqual({
      ref: expect.stringMatching(new RegExp(`^sessions/${sessionId}/attachments/[0-9a-f-]{36}\\.enc$`)),
      uploadUrl: expect.stringMatching(new RegExp(`^${relay.url}/v1/sessions/${sessionId}/attachments/`)),
      method: 'PUT',
    });
    const put = await api.put(new URL(upload.body.uploadUrl as string).pathname, blob);
    expect(put).toMatchObject({ status: 200, body: { ok: true } });

    const download = await api.post(`/v1/sessions/${sessionId}/attachments/request-download`, {
      ref: upload.body.ref,
    });
    expect(download.body).toEqual({ downloadUrl: upload.body.uploadUrl });
    const fetched = await api.bytes(download.body.downloadUrl as string);
    expect(fetched.status).toBe(200);
    expect(fetched.bytes.equals(Buffer.from(blob))).toBe(true);
  });

  it('refuses a body over 10 MB with 413 and stores nothing', async () => {
    const { sessionId, api } = await setup(options());
    const path = `/v1/sessions/${sessionId}/attachments/big.enc`;
    const put = await api.put(path, new Uint8Array(TEN_MB + 1));
    expect(put).toMatchObject({ status: 413, body: { error: 'File too large (max 10MB)' } });
    expect((await api.get(path)).body).toEqual({ error: 'Attachment not found' });
    const exact = await api.put(path, new Uint8Array(TEN_MB));
    expect(exact.status).toBe(200);
  });
});

describe('attachment rules (§8)', () => {
  it('refuses an upload request over 10 MB with the 400 validation shape', async () => {
    const { sessionId, api } = await setup();
    const result = await api.post(`/v1/sessions/${sessionId}/attachments/request-upload`, {
      filename: 'x',
      size: TEN_MB + 1,
    });
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ error: 'Error', statusCode: 400 });
  });

  it('refuses refs of another session or with path tricks', async () => {
    const { token, sessionId, api } = await setup();
    const other = (await createSession(relay!, token)).id as string;
    const download = (ref: string) =>
      api.post(`/v1/sessions/${sessionId}/attachments/request-download`, { ref });
    expect(await download(`sessions/${other}/attachments/a.enc`)).toMatchObject({
      status: 400,
      body: { error: 'Ref does not belong to this session' },
    });
    expect(await download(`sessions/${sessionId}/attachments/../x`)).toMatchObject({
      status: 400,
      body: { error: 'Invalid attachment ref' },
    });
    expect(await download(`sessions/${sessionId}/attachments/`)).toMatchObject({ status: 400 });
    const traversal = await api.put(
      `/v1/sessions/${sessionId}/attachments/..%2Fescape.enc`,
      new Uint8Array(4),
    );
    expect(traversal).toMatchObject({ status: 404, body: { error: 'Invalid attachment file' } });
  });

  it('needs the bearer token to upload and download', async () => {
    const { relay, sessionId, api } = await setup();
    const path = `/v1/sessions/${sessionId}/attachments/a.enc`;
    await api.put(path, new Uint8Array([1, 2, 3]));
    const anonymous = http(relay);
    expect(await anonymous.put(path, new Uint8Array([9]))).toMatchObject({
      status: 401,
      body: { error: 'Missing authorization header' },
    });
    expect((await anonymous.bytes(path)).status).toBe(401);
    expect((await api.bytes(path)).bytes).toEqual(Buffer.from([1, 2, 3]));
  });

  it('deletes the blobs of a session together with the session', async () => {
    const dataDir = tempDir();
    const { sessionId, api } = await setup({ dataDir });
    await api.put(`/v1/sessions/${sessionId}/attachments/a.enc`, new Uint8Array([1]));
    const sessionDir = join(dataDir, 'attachments', sessionId);
    expect(readFileSync(join(sessionDir, 'a.enc'))).toEqual(Buffer.from([1]));
    expect(await api.delete(`/v1/sessions/${sessionId}`)).toMatchObject({ status: 200 });
    expect(existsSync(sessionDir)).toBe(false);
  });

  it('deletes in-memory blobs with the session too', async () => {
    // An in-memory relay keeps blobs in SQLite; its store is checked directly on a real database.
    const db = openDatabase(undefined);
    try {
      const store = new SqliteAttachmentStore(db);
      await store.put('s1', 'a.enc', Buffer.from([1, 2]));
      await store.put('s2', 'b.enc', Buffer.from([3]));
      await store.deleteSession('s1');
      expect(await store.get('s1', 'a.enc')).toBeUndefined();
      expect(await store.get('s2', 'b.enc')).toEqual(Buffer.from([3]));
    } finally {
      db.close();
    }
  });
});
