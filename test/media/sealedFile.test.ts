import { appendFile, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob } from 'happy-session/crypto';
import { randomBytes, sealedBlobBytes } from 'happy-session/internal';
import { findMediaFile } from '../../packages/sdk/src/media/input.js';
import { sealFile, withSealedSource } from '../../packages/sdk/src/media/sealedFile.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'happy-sealed-file-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function fileOf(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

describe('a file sealed where it is (docs/media.md, "Memory")', () => {
  it('gives a blob that opens with the blob key to the file, however it is read', async () => {
    const plain = randomBytes(200_003);
    const key = randomBytes(32);
    const path = await fileOf('a.bin', plain);
    const file = await findMediaFile(path, 1 << 24);
    await withSealedSource({ file: file! }, key, async (blob) => {
      expect(blob.length).toBe(plain.length + 40);
      const whole = await sealedBlobBytes(blob);
      expect(decryptBlob(whole, key)).toEqual({ ok: true, value: plain });
      // In pieces of any size, refilling one buffer: the same bytes again.
      const piece = new Uint8Array(1_000);
      const again = new Uint8Array(blob.length);
      for (let at = 0; at < blob.length;) {
        const read = await blob.readInto(piece, at);
        again.set(piece.subarray(0, read), at);
        at += read;
      }
      expect(Buffer.from(again).equals(Buffer.from(whole))).toBe(true);
    });
  });

  it('refuses a file whose size changed since it was found, with media.file_changed', async () => {
    const path = await fileOf('grows.log', randomBytes(5_000));
    const file = await findMediaFile(path, 1 << 24);
    await appendFile(path, 'one more line\n');
    const error = await withSealedSource({ file: file! }, randomBytes(32), () => Promise.resolve()).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'media.file_changed', hint: expect.any(String), details: { path } });
  });

  it('fails a read in order at its last piece when the content changed after the tag was computed', async () => {
    const plain = randomBytes(150_000);
    const path = await fileOf('rewritten.bin', plain);
    const file = (await findMediaFile(path, 1 << 24))!;
    const handle = await open(path, 'r+');
    try {
      const blob = await sealFile(handle, file, randomBytes(32));
      // Same size, other bytes in the middle: only the content tells.
      await handle.write(randomBytes(10), 0, 10, 70_000);
      const piece = new Uint8Array(65_536);
      expect(await blob.readInto(piece, 0)).toBe(65_536);
      expect(await blob.readInto(piece, 65_536)).toBe(65_536);
      await expect(blob.readInto(piece, 131_072)).rejects.toMatchObject({ code: 'media.file_changed' });
    } finally {
      await handle.close();
    }
  });
});
