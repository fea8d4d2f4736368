/**
 * Exactly one end per call, always (issue 26): an error text too large for a record is cut to fit
 * with a note (the program keeps the whole text), `end()` is idempotent and settles, and `run()`
 * resolves `failed` whatever its executor throws.
 */
import { describe, expect, it } from 'vitest';
import { PermissionGate, loadShellParser } from 'happy-session/permissions';
import { createV1Encoder } from 'happy-session/v1';
import type { SessionMessage } from 'happy-session';
import { MAX_END_TEXT_BYTES } from 'happy-session/internal';
import { expectV2Invariants } from '../helpers/invariants.js';
import { memorySession } from '../helpers/memorySession.js';

const shell = await loadShellParser();

function endOf(
  messages: readonly SessionMessage[],
  callId: string,
): SessionMessage & { type: 'tool-call-end' } {
  const ends = messages.filter((m) => m.type === 'tool-call-end' && m.callId === callId);
  expect(ends).toHaveLength(1);
  return ends[0] as SessionMessage & { type: 'tool-call-end' };
}

describe('a tool call ends exactly once', () => {
  it('end({ error }) with 2,000,000 characters: the record holds the start of it and says how much was cut; call.error has it whole', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    const huge = 'E'.repeat(2_000_000);

    const delivery = call.end({ error: huge });
    expect(call.end({ error: 'again' })).toBe(delivery);
    await expect(delivery).resolves.toMatchObject({ messageId: expect.any(String) });
    turn.end();
    await writer.flush();

    expect(call.error === huge).toBe(true);
    const messages = await reader.messages();
    expect(messages.map((m) => m.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end',
      'turn-end',
    ]);
    const error = endOf(messages, call.callId).error!;
    expect(error.startsWith('E'.repeat(1000))).toBe(true);
    expect(error).toMatch(
      /… \[\d+ of 2000000 characters cut to fit the record; the program has the whole text in call\.error\]$/,
    );
    expect(new TextEncoder().encode(error).length).toBeLessThanOrEqual(MAX_END_TEXT_BYTES + 200);
  });

  it('the same through the v1 encoder (today’s app): one end, cut to fit', async () => {
    const encoder = createV1Encoder();
    const { writer } = memorySession({ encode: (m, c) => encoder.encode(m, c) });
    const appended: SessionMessage[] = [];
    writer.messages$.subscribe((m) => appended.push(m));
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    await expect(call.end({ error: '😀'.repeat(600_000) })).resolves.toBeDefined();
    turn.end();
    await writer.flush();
    expect(appended.filter((m) => m.type === 'tool-call-end')).toHaveLength(1);
  });

  it.each([
    ['a 1.1 MB message', () => new Error('E'.repeat(1_100_000)), /^E{1000}/],
    ['a number', () => 42, /^42$/],
    ['undefined', () => undefined, /^undefined$/],
    [
      'an Error whose message getter throws',
      () => {
        const error = new Error('x');
        Object.defineProperty(error, 'message', {
          get() {
            throw new Error('getter');
          },
        });
        return error;
      },
      /./,
    ],
    [
      'a revoked proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      },
      /cannot be read/,
    ],
  ])(
    'run() whose executor throws %s resolves failed, and the call ends once with an error',
    async (_, thrown, shown) => {
      const { writer, reader } = memorySession();
      const gate = await PermissionGate.create({ writer, shell, mode: 'bypassPermissions' });
      const turn = writer.turn();
      const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });

      const result = await call.run(() => {
        throw thrown();
      });

      expect(result.status).toBe('failed');
      expect(call.ended).toBe(true);
      turn.end();
      await writer.close();
      gate.dispose();
      const messages = await reader.messages();
      expectV2Invariants(messages);
      expect(endOf(messages, call.callId).error).toMatch(shown);
    },
  );
});
