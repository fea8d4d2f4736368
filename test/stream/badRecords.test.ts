import { describe, expect, it } from 'vitest';
import { encodeBase64, generateDataKey } from 'happy-session/crypto';
import { aesGcmSeal, randomBytes, encryptRecordBase64 } from 'happy-session/internal';
import type { ReaderEvent } from 'happy-session';
import { memorySession } from '../helpers/memorySession.js';

describe('SessionReader over a corpus of bad records interleaved with good ones', () => {
  it('yields one typed error per bad record, at its position, and every good record intact and in order', async () => {
    const { writer, reader, transport, key } = memorySession();
    const otherKey = { variant: 'dataKey' as const, key: generateDataKey() };
    const good = (text: string) => writer.append({ role: 'user', type: 'text', text });

    const bad: Array<[string, () => Promise<string>]> = [
      // Random bytes behind a valid version byte, so they reach the authenticity check.
      ['random bytes', async () => encodeBase64(new Uint8Array([0, ...randomBytes(80)]))],
      ['not base64 at all', async () => '%%% not base64 %%%'],
      [
        'the wrong key',
        () => encryptRecordBase64({ id: 'x', time: 1, role: 'user', type: 'text', text: 'hi' }, otherKey),
      ],
      [
        'valid ciphertext of invalid JSON',
        async () => encodeBase64(await aesGcmSeal(new TextEncoder().encode('{"role":'), key.key)),
      ],
      [
        'valid JSON of an unknown type',
        () => encryptRecordBase64({ id: 'x', time: 1, role: 'agent', type: 'todo-list', turn: 't' }, key),
      ],
      [
        'a known type with a wrong field type',
        () => encryptRecordBase64({ id: 'x', time: 1, role: 'user', type: 'text', text: 42 }, key),
      ],
      [
        'an oversized record',
        () =>
          encryptRecordBase64(
            { id: 'x', time: 1, role: 'user', type: 'text', text: 'a'.repeat(1_200_000) },
            key,
          ),
      ],
      [
        'a legacy-variant record in a dataKey session',
        () =>
          encryptRecordBase64(
            { id: 'x', time: 1, role: 'user', type: 'text', text: 'hi' },
            { variant: 'legacy', key: key.key },
          ),
      ],
    ];
    const expectedCodes = [
      'crypto.auth_failed',
      'crypto.invalid_base64',
      'crypto.auth_failed',
      'crypto.invalid_json',
      'protocol.unknown_type',
      'protocol.invalid_message',
      'stream.too_large',
      // A secretbox bundle starts with a random nonce byte, read as a version byte of AES-GCM.
      ['crypto.bad_version', 'crypto.auth_failed', 'crypto.too_short'],
    ];

    good('first');
    await writer.flush();
    for (const [name, make] of bad) {
      transport.injectRaw(await make(), `bad-${name}`);
      good(`after ${name}`);
      await writer.flush();
    }

    const events: ReaderEvent[] = await reader.readAll();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const errors = events.filter((e) => e.kind === 'error');
    expect(errors).toHaveLength(bad.length);
    errors.forEach((e, i) => {
      const expected = expectedCodes[i]!;
      if (Array.isArray(expected)) expect(expected).toContain(e.code);
      else expect(e.code).toBe(expected);
      expect(e.localId).toBe(`bad-${bad[i]![0]}`);
      expect(e.message.length).toBeGreaterThan(0);
    });
    const texts = events.flatMap((e) =>
      e.kind === 'message' && e.message.type === 'text' ? [e.message.text] : [],
    );
    expect(texts).toEqual(['first', ...bad.map(([name]) => `after ${name}`)]);
  });
});
