import { firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, describe, expect, test } from 'vitest';
import { connect } from 'happy-session/node';
import type { InputErrorEvent, Session } from 'happy-session/node';
import { encryptRecordBase64, randomBytes } from 'happy-session/internal';
import { relayWithAccount } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

/**
 * The agent's input applies the reader's limits (issue 36, item 4; docs/streaming.md, "The agent's input:
 * delivered, or skipped with an error"): on the real relay, records the app could store but the reader refuses are
 * skipped by `prompts()` and `userMessages$`, each said on `errors$` with its code, and the good
 * prompts around them are delivered, in order.
 */
let account: RelayAccount | undefined;
let session: Session | undefined;

afterEach(async () => {
  await session?.close();
  session = undefined;
  await account?.relay.close();
  account = undefined;
});

describe('bounded, typed input', () => {
  test('too large, undecryptable, wrong-schema and absurd-time records are typed errors, not prompts', async () => {
    account = await relayWithAccount();
    const on = account;
    session = await connect({
      server: on.relay.url,
      credentials: on.credentials,
      permissions: false,
      shutdownSignals: false,
    });
    const s = session;
    const errors = firstValueFrom(s.errors$.pipe(take(4), toArray()));
    const delivered: string[] = [];
    s.userMessages$.subscribe((m) => delivered.push((m as { text: string }).text));
    const send = async (content: string): Promise<void> => {
      await on.http.request('POST', `/v3/sessions/${s.id}/messages`, {
        messages: [{ content, localId: globalThis.crypto.randomUUID() }],
      });
    };
    const prompt = (text: string, time = Date.now()) => ({
      id: globalThis.crypto.randomUUID(),
      time,
      role: 'user',
      type: 'text',
      text,
    });
    // Positive control first and last.
    await send(await encryptRecordBase64(prompt('before'), s.key));
    await send(await encryptRecordBase64(prompt('x'.repeat(2 * 1024 * 1024)), s.key));
    await send(
      await encryptRecordBase64(prompt('another key'), { variant: 'dataKey', key: randomBytes(32) }),
    );
    await send(await encryptRecordBase64({ ...prompt('schema'), text: 42 }, s.key));
    await send(await encryptRecordBase64(prompt('from the future', Date.now() + 24 * 60 * 60_000), s.key));
    await send(await encryptRecordBase64(prompt('after'), s.key));

    const texts: string[] = [];
    for await (const p of s.prompts()) {
      texts.push(p.text);
      if (texts.length === 2) break;
    }
    expect(texts).toEqual(['before', 'after']);
    const refused: InputErrorEvent[] = await errors;
    expect(refused.map((e) => e.code)).toEqual([
      'stream.too_large',
      expect.stringMatching(/^crypto\./),
      expect.stringMatching(/^protocol\./),
      'stream.implausible_time',
    ]);
    // In seq order, each with its position.
    const seqs = refused.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(delivered).toEqual(['before', 'after']);
  });
});
