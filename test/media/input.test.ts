import { mkdir, open, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMediaInput } from 'happy-session/media';
import { makeTempDir } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()));
afterAll(() => cleanup());

/** A stream of `chunks` chunks of `chunkSize` bytes that counts how many bytes were pulled from it. */
function countingStream(chunks: number, chunkSize: number): Readable & { pulled: () => number } {
  let pulled = 0;
  let sent = 0;
  const stream = new Readable({
    highWaterMark: chunkSize,
    read() {
      if (sent === chunks) return this.push(null);
      sent++;
      pulled += chunkSize;
      this.push(Buffer.alloc(chunkSize, 1));
    },
  });
  return Object.assign(stream, { pulled: () => pulled });
}

describe('readMediaInput', () => {
  it('reads a path, with the base name as the display name', async () => {
    const path = join(dir, 'notes.txt');
    await writeFile(path, 'hello');
    expect(await readMediaInput(path, { maxBytes: 100 })).toEqual({
      bytes: Buffer.from('hello'),
      path,
      name: 'notes.txt',
    });
  });

  it('takes bytes as they are, without copying them', async () => {
    const backing = new Uint8Array([9, 1, 2, 3, 9]);
    const { bytes } = await readMediaInput(backing.subarray(1, 4), { maxBytes: 100 });
    expect([...bytes]).toEqual([1, 2, 3]);
    expect(bytes.buffer).toBe(backing.buffer);
  });

  it('reads a stream, naming it after the file of an fs.ReadStream', async () => {
    const path = join(dir, 'stream.bin');
    await writeFile(path, Buffer.alloc(3000, 7));
    const read = await readMediaInput(createReadStream(path, { highWaterMark: 1000 }), { maxBytes: 10_000 });
    expect(read.bytes).toEqual(Buffer.alloc(3000, 7));
    expect(read.name).toBe('stream.bin');
  });

  it('reads a stream of strings', async () => {
    const { bytes } = await readMediaInput(Readable.from(['ab', 'cd']), { maxBytes: 100 });
    expect(bytes.toString()).toBe('abcd');
  });

  it('raises media.unreadable_path for a path that does not exist', async () => {
    await expect(readMediaInput(join(dir, 'missing.png'), { maxBytes: 100 })).rejects.toMatchObject({
      code: 'media.unreadable_path',
      hint: expect.any(String),
      details: { errno: 'ENOENT' },
    });
  });

  it('raises media.unreadable_path for a directory', async () => {
    const sub = join(dir, 'a-directory');
    await mkdir(sub);
    await expect(readMediaInput(sub, { maxBytes: 100 })).rejects.toMatchObject({
      code: 'media.unreadable_path',
      hint: expect.any(String),
    });
  });

  it('raises media.empty_file for a zero-byte file, empty bytes, and an empty stream', async () => {
    const path = join(dir, 'empty.png');
    await writeFile(path, '');
    for (const input of [path, new Uint8Array(0), Readable.from([])]) {
      await expect(readMediaInput(input, { maxBytes: 100 })).rejects.toMatchObject({
        code: 'media.empty_file',
        hint: expect.any(String),
      });
    }
  });

  it('refuses an oversize file from its size on disk, before reading it', async () => {
    // A sparse file of 1 TiB: reading it would fail (or take hours), so only a stat can refuse it.
    const path = join(dir, 'huge.bin');
    const handle = await open(path, 'w');
    await handle.truncate(2 ** 40);
    await handle.close();
    await expect(readMediaInput(path, { maxBytes: 10_485_720 })).rejects.toMatchObject({
      code: 'media.too_large',
      hint: expect.any(String),
      details: { size: 2 ** 40, maxBytes: 10_485_720 },
    });
  });

  it('refuses oversize bytes', async () => {
    await expect(readMediaInput(new Uint8Array(101), { maxBytes: 100 })).rejects.toMatchObject({
      code: 'media.too_large',
    });
  });

  it('refuses an oversize stream as soon as the count passes the limit, and stops reading it', async () => {
    const chunkSize = 64 * 1024;
    const stream = countingStream(1600, chunkSize); // 100 MiB on offer
    const maxBytes = 1024 * 1024;
    await expect(readMediaInput(stream, { maxBytes })).rejects.toMatchObject({
      code: 'media.too_large',
      hint: expect.any(String),
    });
    expect(stream.pulled()).toBeLessThanOrEqual(maxBytes + 2 * chunkSize);
    expect(stream.destroyed).toBe(true);
  });

  it('raises media.unreadable_stream when the stream fails', async () => {
    const stream = new PassThrough();
    stream.write('partial');
    queueMicrotask(() => stream.destroy(new Error('socket hang up')));
    await expect(readMediaInput(stream, { maxBytes: 100 })).rejects.toMatchObject({
      code: 'media.unreadable_stream',
      hint: expect.any(String),
    });
  });

  it('raises media.aborted when the signal fires while a stream is waiting for data', async () => {
    const stream = new PassThrough(); // never ends
    const controller = new AbortController();
    const reading = readMediaInput(stream, { maxBytes: 100, signal: controller.signal });
    stream.write('some');
    controller.abort();
    await expect(reading).rejects.toMatchObject({ code: 'media.aborted' });
  });

  it('refuses input that is not a path, bytes or a stream with media.unsupported', async () => {
    await expect(readMediaInput(42 as unknown as string, { maxBytes: 100 })).rejects.toMatchObject({
      code: 'media.unsupported',
      hint: expect.any(String),
    });
  });
});
