import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionMessage } from 'happy-session';
import { builderOpArb, runBuilderProgram } from '../../helpers/builderProgram.js';
import type { BuilderOp } from '../../helpers/builderProgram.js';
import { READING_ORDERS, appReads } from '../../helpers/happyAppModel.js';
import { expectValidV1Stream, storedRecords, v1MemorySession } from './helpers.js';

const opArb = builderOpArb();

/** Runs the ops against a v1 writer whose clock stands still; close() ends what is left open. */
async function run(ops: readonly BuilderOp[]): Promise<{ messages: SessionMessage[]; records: unknown[] }> {
  const { writer, transport, key } = v1MemorySession({ clock: () => 1_000 });
  const messages: SessionMessage[] = [];
  writer.messages$.subscribe((m) => messages.push(m));
  await runBuilderProgram(writer, ops);
  await writer.close();
  const stored = await storedRecords(transport, key);
  return { messages, records: stored.map((s) => s.record) };
}

describe('v1 output of random builder sequences (fast-check)', () => {
  it('is schema-valid, time strictly increases, and every v2 message but permissions is one record', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const { messages, records } = await run(ops);
        const v1 = expectValidV1Stream(records);
        const recordIds = v1.map((r) =>
          r.role === 'session' ? r.content.id : r.content.type === 'event' ? r.content.id : r.content.data.id,
        );
        for (const m of messages) {
          const expected = m.type === 'permission-request' || m.type === 'permission-response' ? 0 : 1;
          expect(
            recordIds.filter((id) => id === m.id),
            `${m.type} ${m.id}`,
          ).toHaveLength(expected);
        }
        const failed = messages.filter((m) => m.type === 'tool-call-end' && m.error !== undefined);
        const results = v1.filter((r) => r.role === 'agent' && r.content.type === 'acp');
        expect(results).toHaveLength(failed.length);
      }),
      { numRuns: 150 },
    );
  });

  it("shows in today's app, in every reading order, each call once with its error as its result", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const { messages, records } = await run(ops);
        const stored = records.map((record, i) => ({ record, seq: i + 1 }));
        const ends = new Map(
          messages.flatMap((m) => (m.type === 'tool-call-end' ? [[m.callId, m.error]] : [])),
        );
        const callIds = messages.flatMap((m) => (m.type === 'tool-call-start' ? [m.callId] : []));
        for (const order of READING_ORDERS) {
          const screen = appReads(stored, {}, order);
          expect(screen.dropped).toBe(0);
          expect(
            screen.tools
              .filter((t) => t.name !== 'file')
              .map((t) => t.id)
              .sort(),
          ).toEqual([...callIds].sort());
          for (const tool of screen.tools) {
            if (tool.name === 'file') continue;
            const error = ends.get(tool.id);
            expect(tool.result).toEqual(
              error === undefined ? { output: null, isError: false } : { output: error, isError: true },
            );
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
