import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blobKeyFor, decryptBlob, encryptBlob } from 'happy-session/crypto';
import { sealBlobStream, randomBytes } from 'happy-session/internal';
import { MediaPipeline, MediaReader, fetchMedia, HappyUploader } from 'happy-session/media';
import type { MediaMessage, HappyUploaderOptions } from 'happy-session/media';
import type { Relay } from 'happy-session-relay';
import { startRelay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import { HappyHttp } from 'happy-session/internal';
import type { Session } from 'happy-session/node';
import { accountOn } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { FaultProxy } from '../helpers/faultProxy.js';
import type { SeenRequest, Verdict } from '../helpers/faultProxy.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const FAST_RETRY = { attempts: 4, baseDelayMs: 1, maxDelayMs: 5 };

let relay: Relay;
let account: Omit<RelayAccount, 'relay'>;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  relay = await startRelay();
  account = await accountOn(relay.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => relay.close());

/**
 * A session on the relay whose attachments go through a fault proxy: the uploader under test is
 * real and talks HTTP to the real relay; only the proxy in between misbehaves on purpose.
 */
async function sessionBehindProxy(
  decide: (request: SeenRequest, index: number) => Verdict,
  options: Partial<HappyUploaderOptions> = {},
): Promise<{ session: Session; proxy: FaultProxy; uploader: HappyUploader }> {
  const proxy = await new FaultProxy(relay.url, decide).start();
  cleanups.push(() => proxy.close());
  const session = await connect({ server: relay.url, credentials: account.credentials });
  cleanups.push(() => session.close());
  const uploader = new HappyUploader({
    http: new HappyHttp({ serverUrl: proxy.url, token: account.token }),
    token: account.token,
    sessionId: session.id,
    retry: FAST_RETRY,
    ...options,
  });
  MediaPipeline.create({ writer: session.writer, uploader, key: session.key });
  return { session, proxy, uploader };
}

async function streamTypes(session: Session): Promise<string[]> {
  await session.writer.flush();
  return (await session.reader.messages()).map((m) => m.type);
}

const forward: Verdict = { kind: 'forward' };

describe('HappyUploader streams a blob it encrypts piece by piece (docs/media.md, "Memory")', () => {
  it('stores exactly the bytes encryptBlob makes, sent in pieces, with progress up to the whole length', async () => {
    const { session, uploader, proxy } = await sessionBehindProxy(() => forward, { chunkSize: 16_384 });
    const plain = randomBytes(300_001);
    const key = blobKeyFor(session.key);
    const nonce = randomBytes(24);
    const progress: number[] = [];
    const sealed = sealBlobStream(plain, key, { nonce });
    const { ref } = await uploader.uploadSealed(sealed, {
      filename: 'big.bin',
      onProgress: (sent, total) => {
        expect(total).toBe(sealed.length);
        progress.push(sent);
      },
    });
    expect(proxy.count('PUT', '/attachments/')).toBe(1);
    expect(Buffer.from(await uploader.download(ref)).equals(encryptBlob(plain, key, { nonce }))).toBe(true);
    expect(progress.at(-1)).toBe(sealed.length);
    expect(progress.length).toBeGreaterThan(10);
  });

  it('sends the blob again from its first byte when a retried PUT needs it', async () => {
    let dropped = false;
    const { session, uploader } = await sessionBehindProxy((r) => {
      if (r.method === 'PUT' && !dropped) {
        dropped = true;
        return { kind: 'drop' };
      }
      return forward;
    });
    const plain = randomBytes(200_000);
    const key = blobKeyFor(session.key);
    const nonce = randomBytes(24);
    const { ref } = await uploader.uploadSealed(sealBlobStream(plain, key, { nonce }), { filename: 'b.bin' });
    expect(dropped).toBe(true);
    expect(Buffer.from(await uploader.download(ref)).equals(encryptBlob(plain, key, { nonce }))).toBe(true);
  });
});

describe('HappyUploader retries', () => {
  it('retries a PUT answered with 503, then the attachment is stored and appended', async () => {
    let failed = false;
    const { session, proxy } = await sessionBehindProxy((r) => {
      if (r.method === 'PUT' && !failed) {
        failed = true;
        return { kind: 'answer', status: 503, body: { error: 'upstream busy' } };
      }
      return forward;
    });
    const message = await session.turn().attach(PDF, { name: 'report.pdf' });
    expect(proxy.count('PUT', '/attachments/')).toBe(2);
    expect(proxy.count('POST', '/request-upload')).toBe(1);
    expect(await streamTypes(session)).toEqual(['turn-start', 'file']);
    expect((await session.fetchMedia(message)).equals(PDF)).toBe(true);
  });

  it('retries request-upload answered with 429 (the rate limit)', async () => {
    let refused = 0;
    const { session, proxy } = await sessionBehindProxy((r) => {
      if (r.url.endsWith('/request-upload') && refused < 2) {
        refused++;
        return { kind: 'answer', status: 429, body: { error: 'Too many upload requests' } };
      }
      return forward;
    });
    await session.turn().attach(PDF, { name: 'a.pdf' });
    expect(proxy.count('POST', '/request-upload')).toBe(3);
    expect(proxy.count('PUT', '/attachments/')).toBe(1);
  });

  it('retries a dropped connection during the PUT', async () => {
    let dropped = false;
    const { session, proxy } = await sessionBehindProxy((r) => {
      if (r.method === 'PUT' && !dropped) {
        dropped = true;
        return { kind: 'drop' };
      }
      return forward;
    });
    const message = await session.turn().attach(PDF, { name: 'a.pdf' });
    expect(proxy.count('PUT', '/attachments/')).toBe(2);
    expect((await session.fetchMedia(message)).equals(PDF)).toBe(true);
  });

  it('gives up with media.upload_failed after the configured tries, appending only the failure note', async () => {
    const { session, proxy } = await sessionBehindProxy((r) =>
      r.method === 'PUT' ? { kind: 'answer', status: 502, body: { error: 'bad gateway' } } : forward,
    );
    const error = await session
      .turn()
      .attach(PDF)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'media.upload_failed',
      hint: expect.any(String),
      details: { attempts: 4, status: 502 },
    });
    expect(proxy.count('PUT', '/attachments/')).toBe(4);
    expect(await streamTypes(session)).toEqual(['turn-start', 'service']);
  });

  it.each([400, 403, 413])(
    'does not retry a PUT answered with %i: media.upload_rejected, only the failure note appended',
    async (status) => {
      const { session, proxy } = await sessionBehindProxy((r) =>
        r.method === 'PUT' ? { kind: 'answer', status, body: { error: 'no' } } : forward,
      );
      const error = await session
        .turn()
        .attach(PDF)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'media.upload_rejected',
        details: { status, body: { error: 'no' } },
      });
      expect(proxy.count('PUT', '/attachments/')).toBe(1);
      expect(await streamTypes(session)).toEqual(['turn-start', 'service']);
    },
  );

  it('stops at once with media.aborted when the signal fires during the upload, appending nothing', async () => {
    const { session } = await sessionBehindProxy(() => forward, { chunkSize: 16 });
    const controller = new AbortController();
    const error = await session
      .turn()
      .attach(PDF, {
        signal: controller.signal,
        onProgress: ({ sent }) => {
          if (sent >= 32) controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'media.aborted' });
    expect(await streamTypes(session)).toEqual(['turn-start']);
  });
});

describe('HappyUploader against an upload URL that fails mid-body (node:http)', () => {
  /** What the stand-in storage does with each PUT: take it, answer 413 at once, or cut it off. */
  type Storage = 'store' | 'refuse-early' | 'drop-mid-body';
  let storage: Server;
  let storageUrl: string;
  let plan: Storage[] = [];
  const stored: Buffer[] = [];
  let requestsSeen = 0;

  beforeAll(async () => {
    storage = createServer((req, res) => {
      requestsSeen++;
      const what = plan.shift() ?? 'store';
      if (what === 'refuse-early') {
        // Answers before reading a byte of the body, as a server that checks Content-Length does.
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ error: 'Payload too large' }));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => {
        chunks.push(c);
        if (what === 'drop-mid-body') req.socket.destroy();
      });
      req.on('end', () => {
        stored.push(Buffer.concat(chunks));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
    storageUrl = `http://127.0.0.1:${(storage.address() as AddressInfo).port}/put`;
  });
  afterAll(() => new Promise<void>((resolve) => storage.close(() => resolve())));

  /** A session whose request-upload answers send the blob to the stand-in storage with a PUT. */
  function toStorage(): Promise<{ session: Session; uploader: HappyUploader }> {
    return sessionBehindProxy((r) =>
      r.url.endsWith('/request-upload')
        ? {
            kind: 'forward',
            rewrite: (_status, body) => {
              const ticket = JSON.parse(body.toString()) as { ref: string };
              return Buffer.from(JSON.stringify({ ref: ticket.ref, uploadUrl: storageUrl, method: 'PUT' }));
            },
          }
        : forward,
    );
  }

  it('a 413 answered before the body is read: media.upload_rejected at once, not retried', async () => {
    const { session, uploader } = await toStorage();
    plan = ['refuse-early'];
    requestsSeen = 0;
    const blob = sealBlobStream(randomBytes(2_000_000), blobKeyFor(session.key));
    const error = await uploader.uploadSealed(blob, { filename: 'big.bin' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'media.upload_rejected',
      hint: expect.stringContaining('10 MB'),
      details: { status: 413, body: { error: 'Payload too large' } },
    });
    expect(requestsSeen).toBe(1);
  });

  it('a connection dropped mid-body is retried, and the next try sends the whole blob from its first byte', async () => {
    const { session, uploader } = await toStorage();
    plan = ['drop-mid-body'];
    stored.length = 0;
    const plain = randomBytes(1_000_000);
    const key = blobKeyFor(session.key);
    const nonce = randomBytes(24);
    const progress: number[] = [];
    await uploader.uploadSealed(sealBlobStream(plain, key, { nonce }), {
      filename: 'big.bin',
      onProgress: (sent) => progress.push(sent),
    });
    expect(stored).toHaveLength(1);
    expect(stored[0]?.equals(encryptBlob(plain, key, { nonce }))).toBe(true);
    expect(progress.filter((sent) => sent === 0).length).toBe(2);
    expect(progress.at(-1)).toBe(plain.length + 40);
  });
});

describe('HappyUploader with a presigned POST (S3)', () => {
  interface Received {
    headers: IncomingHttpHeaders;
    body: Buffer;
  }
  let storage: Server;
  let storageUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    // Stands in for S3: accepts the multipart POST and keeps what it got.
    storage = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
    storageUrl = `http://127.0.0.1:${(storage.address() as AddressInfo).port}/bucket`;
  });
  afterAll(() => new Promise<void>((resolve) => storage.close(() => resolve())));

  it('sends the form fields first, then the file part, with no Authorization header', async () => {
    const formFields = { key: 'sessions/x/attachments/y.enc', policy: 'cG9saWN5', 'x-amz-signature': 'abc' };
    const { session, proxy } = await sessionBehindProxy((r) =>
      r.url.endsWith('/request-upload')
        ? {
            kind: 'forward',
            rewrite: (_status, body) => {
              const ticket = JSON.parse(body.toString()) as { ref: string };
              return Buffer.from(
                JSON.stringify({ ref: ticket.ref, uploadUrl: storageUrl, method: 'POST', formFields }),
              );
            },
          }
        : forward,
    );
    const progress: number[] = [];
    const message = (await session
      .turn()
      .attach(PDF, { name: 'r.pdf', onProgress: ({ sent }) => progress.push(sent) })) as MediaMessage;
    expect(message.ref).toMatch(new RegExp(`^sessions/${session.id}/attachments/`));
    expect(proxy.count('PUT', '/attachments/')).toBe(0);

    const [upload] = received.splice(0);
    expect(upload?.headers.authorization).toBeUndefined();
    expect(upload?.headers['content-length']).toBe(String(upload?.body.length));
    const boundary = /boundary=(.+)$/.exec(upload?.headers['content-type'] ?? '')?.[1] ?? '';
    const text = upload?.body.toString('latin1') ?? '';
    const names = [...text.matchAll(/; name="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(['key', 'policy', 'x-amz-signature', 'file']);
    expect(text).toContain('name="file"; filename="blob"\r\nContent-Type: application/octet-stream\r\n\r\n');
    // The file part is the blob, which opens with the session's blob key.
    const start =
      text.indexOf('application/octet-stream\r\n\r\n') + 'application/octet-stream\r\n\r\n'.length;
    const end = text.lastIndexOf(`\r\n--${boundary}--`);
    const blob = upload?.body.subarray(start, end) ?? Buffer.alloc(0);
    const opened = decryptBlob(blob, blobKeyFor(session.key));
    expect(opened.ok && Buffer.from(opened.value).equals(PDF)).toBe(true);
    expect(progress.at(-1)).toBe(PDF.length + 40);
  });
});

describe('reading attachments back', () => {
  it('refuses a ref of another session with media.bad_ref before any request', async () => {
    const { session, proxy, uploader } = await sessionBehindProxy(() => forward);
    const message = { ...(await session.turn().attach(PDF)), ref: 'sessions/other/attachments/x.enc' };
    const before = proxy.seen.length;
    const reader = new MediaReader({ uploader, key: session.key });
    await expect(reader.fetch(message)).rejects.toMatchObject({
      code: 'media.bad_ref',
      hint: expect.any(String),
    });
    expect(proxy.seen.length).toBe(before);
  });

  it('gives media.decrypt_failed for a blob encrypted with another key', async () => {
    const { session, uploader } = await sessionBehindProxy(() => forward);
    const message = await session.turn().attach(PDF);
    const error = await fetchMedia(message, {
      uploader,
      key: { variant: 'dataKey', key: randomBytes(32) },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'media.decrypt_failed', details: { reason: 'crypto.auth_failed' } });
  });

  it('gives media.download_failed for a ref the server does not have', async () => {
    const { session } = await sessionBehindProxy(() => forward);
    const message = {
      ...(await session.turn().attach(PDF)),
      ref: `sessions/${session.id}/attachments/gone.enc`,
    };
    await expect(session.fetchMedia(message)).rejects.toMatchObject({
      code: 'media.download_failed',
      details: { status: 404 },
    });
  });

  it('retries a download answered with 500', async () => {
    let failed = false;
    const { session, proxy, uploader } = await sessionBehindProxy((r) => {
      if (r.method === 'GET' && !failed) {
        failed = true;
        return { kind: 'answer', status: 500, body: { error: 'oops' } };
      }
      return forward;
    });
    const message = await session.turn().attach(PDF);
    const bytes = await new MediaReader({ uploader, key: session.key }).fetch(message);
    expect(bytes.equals(PDF)).toBe(true);
    expect(proxy.count('GET', '/attachments/')).toBe(2);
  });
});
