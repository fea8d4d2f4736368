import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAttachmentStore } from '../../packages/relay/src/attachments.js';
import { openDatabase } from '../../packages/relay/src/db.js';
import { startRelay, type Relay, type RelayOptions } from 'happy-session-relay';
import { createSession, http, signIn, uploadPath } from './helpers.js';

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

  it('refuses a body over 10 MB with 413, stores nothing, and takes the name again', async () => {
    const { relay, token, sessionId, api } = await setup(options());
    const path = await uploadPath(relay, token, sessionId, TEN_MB);
    const put = await api.put(path, new Uint8Array(TEN_MB + 1));
    expect(put).toMatchObject({ status: 413, body: { error: 'File too large (max 10MB)' } });
    expect((await api.get(path)).body).toEqual({ error: 'Attachment not found' });
    const exact = await api.put(path, new Uint8Array(TEN_MB));
    expect(exact.status).toBe(200);
  });

  it('cuts a chunked body off at 10 MB with 413', async () => {
    const { relay, token, sessionId } = await setup(options());
    const path = await uploadPath(relay, token, sessionId, TEN_MB);
    // A stream body goes out chunked, without Content-Length: the limit holds while it arrives.
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * TEN_MB) return controller.close();
        sent += 1024 * 1024;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const response = await fetch(`${relay.url}${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    // Either the 413 arrives, or the relay closed the connection on the rest of the body.
    if (response instanceof Response) {
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ error: 'File too large (max 10MB)' });
    }
    expect((await http(relay, token).get(path)).body).toEqual({ error: 'Attachment not found' });
  });

  it('takes a PUT only for a name request-upload issued, and only once', async () => {
    const { relay, token, sessionId, api } = await setup(options());
    const unissued = await api.put(
      `/v1/sessions/${sessionId}/attachments/chosen-by-client.enc`,
      new Uint8Array(4),
    );
    expect(unissued).toMatchObject({
      status: 403,
      body: { error: 'No upload was requested for this attachment' },
    });
    expect((await api.get(`/v1/sessions/${sessionId}/attachments/chosen-by-client.enc`)).status).toBe(404);

    const path = await uploadPath(relay, token, sessionId);
    expect((await api.put(path, new Uint8Array([1, 2, 3]))).status).toBe(200);
    const again = await api.put(path, new Uint8Array([6, 6, 6]));
    expect(again).toMatchObject({ status: 409, body: { error: 'Attachment already uploaded' } });
    expect((await api.bytes(path)).bytes).toEqual(Buffer.from([1, 2, 3]));
  });

  it("refuses a name issued to another of the account's sessions", async () => {
    const { relay, token, sessionId, api } = await setup(options());
    const other = (await createSession(relay, token)).id as string;
    const issued = await uploadPath(relay, token, other);
    const file = issued.split('/').at(-1)!;
    const put = await api.put(`/v1/sessions/${sessionId}/attachments/${file}`, new Uint8Array(4));
    expect(put.status).toBe(403);
  });

  it('answers a quota reached with 413 and a clear error, at request-upload and at PUT', async () => {
    const { relay, token, sessionId, api } = await setup({
      ...options(),
      limits: { attachmentQuotaBytes: 1000 },
    });
    const first = await uploadPath(relay, token, sessionId, 600);
    const second = await uploadPath(relay, token, sessionId, 300);
    expect((await api.put(first, new Uint8Array(600))).status).toBe(200);
    const over = await api.post(`/v1/sessions/${sessionId}/attachments/request-upload`, {
      filename: 'x',
      size: 500,
    });
    const quota = {
      error: 'Attachment storage quota exceeded (1000 bytes per account); delete sessions to free space',
    };
    expect(over).toMatchObject({ status: 413, body: quota });
    // The PUT is measured too: more bytes than the name was asked for do not slip through.
    expect(await api.put(second, new Uint8Array(500))).toMatchObject({ status: 413, body: quota });
    expect((await api.put(second, new Uint8Array(400))).status).toBe(200);
    // Deleting a session gives its space back.
    expect((await api.delete(`/v1/sessions/${sessionId}`)).status).toBe(200);
    const fresh = (await createSession(relay, token)).id as string;
    expect((await uploadPath(relay, token, fresh, 900)).length).toBeGreaterThan(0);
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

  it.each(['a%00b', 'a%0Ab.enc', 'a%1Fb', 'a%7Fb'])(
    'answers a control character in a name (%s) with 400',
    async (name) => {
      const { sessionId, api } = await setup();
      const invalid = { status: 400, body: { error: 'Invalid attachment file name' } };
      expect(await api.put(`/v1/sessions/${sessionId}/attachments/${name}`, new Uint8Array(4))).toMatchObject(
        invalid,
      );
      expect(await api.get(`/v1/sessions/${sessionId}/attachments/${name}`)).toMatchObject(invalid);
      const ref = `sessions/${sessionId}/attachments/${decodeURIComponent(name)}`;
      expect(await api.post(`/v1/sessions/${sessionId}/attachments/request-download`, { ref })).toMatchObject(
        {
          status: 400,
          body: { error: 'Invalid attachment ref' },
        },
      );
    },
  );

  it('needs the bearer token to upload and download', async () => {
    const { relay, token, sessionId, api } = await setup();
    const path = await uploadPath(relay, token, sessionId);
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
    const { relay, token, sessionId, api } = await setup({ dataDir });
    const path = await uploadPath(relay, token, sessionId);
    await api.put(path, new Uint8Array([1]));
    const sessionDir = join(dataDir, 'attachments', sessionId);
    expect(readFileSync(join(sessionDir, path.split('/').at(-1)!))).toEqual(Buffer.from([1]));
    expect(await api.delete(`/v1/sessions/${sessionId}`)).toMatchObject({ status: 200 });
    expect(existsSync(sessionDir)).toBe(false);
  });

  it('deletes in-memory blobs with the session too', async () => {
    // An in-memory relay keeps blobs in SQLite; its store is checked directly on a real database.
    const db = openDatabase(undefined);
    try {
      const store = new SqliteAttachmentStore(db);
      await store.put('s1', 'a.enc', [Buffer.from([1, 2])], 10);
      await store.put('s2', 'b.enc', [Buffer.from([3])], 10);
      await store.deleteSession('s1');
      expect(await store.get('s1', 'a.enc')).toBeUndefined();
      expect(await store.get('s2', 'b.enc')).toEqual(Buffer.from([3]));
    } finally {
      db.close();
    }
  });
});
