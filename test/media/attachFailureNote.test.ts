import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayWithAccount } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

/**
 * A failed `attach()` leaves a visible note in the scope, in either format, saying which file and
 * why; `failureNote: false` and an abort leave nothing (issue 39, item 6).
 */
let account: RelayAccount;
beforeEach(async () => {
  account = await relayWithAccount();
});
afterEach(async () => {
  await account.relay.close();
});

async function session(format: 'v1' | 'v2'): Promise<Session> {
  return connect({
    server: account.relay.url,
    credentials: account.credentials,
    title: 'Attach',
    format,
    shutdownSignals: false,
  });
}

describe('a failed attach() writes a note', () => {
  it.each(['v1', 'v2'] as const)('in a %s session: which file failed and why', async (format) => {
    const agent = await session(format);
    try {
      const turn = agent.turn();
      await expect(turn.attach('/nowhere/screen.png')).rejects.toMatchObject({
        code: 'media.unreadable_path',
      });
      await expect(turn.attach(Buffer.alloc(0), { name: 'empty.bin' })).rejects.toMatchObject({
        code: 'media.empty_file',
      });
      await turn.end();
      const events = await agent.reader.readAll({ afterSeq: 0 });
      const notes = events.flatMap((e) =>
        e.kind === 'message' && e.message.type === 'service' ? [[e.format, e.message.text]] : [],
      );
      expect(notes).toEqual([
        [format, expect.stringMatching(/^Could not attach screen\.png: .*\/nowhere\/screen\.png/)],
        [format, expect.stringMatching(/^Could not attach empty\.bin: .*empty/)],
      ]);
      // The message without the hint: the person reads what happened, not what the program should do.
      expect(notes[0]![1]).not.toContain('(');
    } finally {
      await agent.close({ archive: false });
    }
  });

  it('failureNote: false, or an abort, leaves the stream untouched', async () => {
    const agent = await session('v2');
    try {
      const turn = agent.turn();
      await expect(turn.attach('/nowhere/screen.png', { failureNote: false })).rejects.toMatchObject({
        code: 'media.unreadable_path',
      });
      const stop = new AbortController();
      stop.abort();
      await expect(turn.attach('/nowhere/other.png', { signal: stop.signal })).rejects.toMatchObject({
        code: 'media.aborted',
      });
      await turn.end();
      const messages = await agent.reader.messages({ afterSeq: 0 });
      expect(messages.map((m) => m.type)).toEqual(['turn-start', 'turn-end']);
    } finally {
      await agent.close({ archive: false });
    }
  });
});
