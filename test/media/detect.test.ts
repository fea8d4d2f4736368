import { describe, expect, it } from 'vitest';
import { detectKind } from 'happy-session/media';
import { solid } from './fixtures.js';

/** The smallest document file-type recognises as a PDF: its magic header and a trailer. */
const pdf = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe('detectKind', () => {
  it('detects a photo from its content', async () => {
    const png = await solid(4, 4, { r: 1, g: 2, b: 3 }).png().toBuffer();
    expect(await detectKind(png)).toEqual({ kind: 'photo', mimeType: 'image/png', ext: 'png' });
  });

  it('keeps a photo a photo, with its real type, whatever MIME type the caller claims', async () => {
    const jpeg = await solid(4, 4, { r: 1, g: 2, b: 3 }).jpeg().toBuffer();
    expect(await detectKind(jpeg, { mimeType: 'application/octet-stream' })).toEqual({
      kind: 'photo',
      mimeType: 'image/jpeg',
      ext: 'jpg',
    });
  });

  it('detects a PDF as a file of type application/pdf', async () => {
    expect(await detectKind(pdf)).toEqual({ kind: 'file', mimeType: 'application/pdf', ext: 'pdf' });
  });

  it('sends content with no magic bytes that is not text as application/octet-stream', async () => {
    expect(await detectKind(Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x80, 0x00]))).toEqual({
      kind: 'file',
      mimeType: 'application/octet-stream',
    });
  });

  it('sends UTF-8 content with no magic bytes as text/plain', async () => {
    expect(await detectKind(Buffer.from('just some text, ünïcode too\n'))).toEqual({
      kind: 'file',
      mimeType: 'text/plain',
    });
  });

  it('gives a text file the type its extension names', async () => {
    const cases: Array<[string, string, string]> = [
      ['notes.md', '# Notes\n', 'text/markdown'],
      ['data.json', '{"a": 1}\n', 'application/json'],
      ['table.csv', 'a,b\n1,2\n', 'text/csv'],
      ['config.yaml', 'a: 1\n', 'text/yaml'],
      ['build.log', '\x1b[32mok\x1b[0m\n', 'text/plain'],
      ['README', 'plain words\n', 'text/plain'],
    ];
    for (const [name, text, mimeType] of cases) {
      expect(await detectKind(Buffer.from(text), { name }), name).toEqual({ kind: 'file', mimeType });
    }
  });

  it('lets the bytes win when the extension disagrees with them', async () => {
    // `.ts` is an MPEG transport stream to the MIME database, `.json` text: the bytes say otherwise.
    expect(await detectKind(Buffer.from('export const a = 1;\n'), { name: 'a.ts' })).toEqual({
      kind: 'file',
      mimeType: 'text/plain',
    });
    expect(await detectKind(Buffer.from([0x00, 0xff, 0x00, 0x9c]), { name: 'data.json' })).toEqual({
      kind: 'file',
      mimeType: 'application/octet-stream',
    });
    const png = await solid(4, 4, { r: 1, g: 2, b: 3 }).png().toBuffer();
    expect(await detectKind(png, { name: 'notes.txt' })).toEqual({
      kind: 'photo',
      mimeType: 'image/png',
      ext: 'png',
    });
  });

  it("takes the caller's MIME type for content it cannot recognise", async () => {
    expect(await detectKind(Buffer.from('# Notes\n'), { mimeType: 'text/markdown' })).toEqual({
      kind: 'file',
      mimeType: 'text/markdown',
    });
  });

  it('detects a video container by its magic bytes (ISO BMFF ftyp box)', async () => {
    const ftyp = Buffer.concat([
      Buffer.from([0, 0, 0, 0x20]),
      Buffer.from('ftypisom', 'ascii'),
      Buffer.from([0, 0, 2, 0]),
      Buffer.from('isomiso2avc1mp41', 'ascii'),
      Buffer.alloc(64),
    ]);
    expect(await detectKind(ftyp)).toMatchObject({ kind: 'video', mimeType: 'video/mp4' });
  });

  it('still takes content that starts like a PNG for a photo when the rest is damaged', async () => {
    const damaged = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 0x5a)]);
    expect(await detectKind(damaged)).toEqual({ kind: 'photo', mimeType: 'image/png', ext: 'png' });
  });

  it('sends an image format sharp does not decode (BMP) as a file of its own type', async () => {
    const bmp = Buffer.alloc(58);
    bmp.write('BM', 0, 'latin1');
    bmp.writeUInt32LE(58, 2); // file size
    bmp.writeUInt32LE(54, 10); // pixel data offset
    bmp.writeUInt32LE(40, 14); // BITMAPINFOHEADER
    bmp.writeInt32LE(1, 18); // width
    bmp.writeInt32LE(1, 22); // height
    bmp.writeUInt16LE(1, 26); // planes
    bmp.writeUInt16LE(24, 28); // bits per pixel
    expect(await detectKind(bmp)).toMatchObject({ kind: 'file', mimeType: 'image/bmp' });
  });
});
