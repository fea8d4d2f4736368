import { expect } from 'vitest';
import { decryptRecord } from 'happy-session/crypto';
import type { RecordKey } from 'happy-session/crypto';
import { V1RecordSchema, createV1Encoder } from 'happy-session/v1';
import type { V1Envelope, V1Record } from 'happy-session/v1';
import type { SessionWriterOptions, Transport } from 'happy-session';
import { memorySession } from '../../helpers/memorySession.js';

/** A writer in v1 format over an in-memory transport, as `connect({format: 'v1'})` builds it. */
export function v1MemorySession(options: Partial<SessionWriterOptions> = {}) {
  const encoder = createV1Encoder();
  return memorySession({ ...options, encode: (message, context) => encoder.encode(message, context) });
}

/** Every stored record, decrypted, in seq order, with its localId. */
export async function storedRecords(
  transport: Transport,
  key: RecordKey,
): Promise<{ record: unknown; localId: string | null; seq: number }[]> {
  const out: { record: unknown; localId: string | null; seq: number }[] = [];
  for (let after = 0; ;) {
    const page = await transport.read(after);
    for (const stored of page.records) {
      const decrypted = await decryptRecord(stored.content, key);
      if (!decrypted.ok) throw new Error(decrypted.error.message);
      out.push({ record: decrypted.value, localId: stored.localId, seq: stored.seq });
      after = stored.seq;
    }
    if (!page.hasMore || page.records.length === 0) return out;
  }
}

/** The envelope of a v1 session record (direct form), or undefined for a legacy record. */
export function envelopeOf(record: V1Record): V1Envelope | undefined {
  return record.role === 'session' ? record.content : undefined;
}

/**
 * Asserts what today's app needs of a v1 stream written by the encoder: every record validates and
 * loses no field to the schema; agent envelopes carry `turn`; no record carries `subagent` (no
 * `start` / `stop` either); `time` strictly increases; record ids are unique; each
 * `tool-call-start` has exactly one final record: its `tool-call-end` or its `acp` result (by the
 * end of the stream, unless `complete` is false).
 */
export function expectValidV1Stream(records: readonly unknown[], { complete = true } = {}): V1Record[] {
  const typed: V1Record[] = [];
  let lastTime = -Infinity;
  const ids = new Set<string>();
  const openCalls = new Set<string>();
  for (const record of records) {
    const parsed = V1RecordSchema.safeParse(record);
    expect(parsed.success, JSON.stringify(record) + (parsed.error?.message ?? '')).toBe(true);
    expect(parsed.data).toEqual(record);
    const v1 = record as V1Record;
    typed.push(v1);
    const recordId =
      v1.role === 'session' ? v1.content.id : v1.content.type === 'acp' ? v1.content.data.id : v1.content.id;
    expect(ids.has(recordId), `duplicate id ${recordId}`).toBe(false);
    ids.add(recordId);
    if (v1.role === 'agent' && v1.content.type === 'acp') {
      expect(openCalls.delete(v1.content.data.callId), `result of an open call`).toBe(true);
    }
    const envelope = envelopeOf(v1);
    if (!envelope) continue;
    if (envelope.role === 'agent') expect(envelope.turn).toEqual(expect.any(String));
    expect(envelope.time).toBeGreaterThan(lastTime);
    lastTime = envelope.time;
    const { ev } = envelope;
    expect(envelope.subagent).toBeUndefined();
    expect(['start', 'stop']).not.toContain(ev.t);
    if (ev.t === 'tool-call-start') {
      expect(openCalls.has(ev.call)).toBe(false);
      openCalls.add(ev.call);
    }
    if (ev.t === 'tool-call-end') expect(openCalls.delete(ev.call)).toBe(true);
  }
  if (complete) expect([...openCalls], 'calls without a final record').toEqual([]);
  return typed;
}

const LABELLED = ['turn', 'subagent', 'call', 'callId', 'sessionSubagent'] as const;

/**
 * Drops ids and times and renames turn, call and subagent ids to labels by first appearance, so
 * that a stream compares field by field whatever ids it was given. A subagent that reuses its
 * call's id gets the call's label.
 */
export function normaliseV1(records: readonly V1Record[]): unknown[] {
  const labels = new Map<string, string>();
  const label = (value: string): string => {
    let l = labels.get(value);
    if (!l) {
      l = `#${labels.size + 1}`;
      labels.set(value, l);
    }
    return l;
  };
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' || k === 'time') continue;
      out[k] = (LABELLED as readonly string[]).includes(k) && typeof v === 'string' ? label(v) : walk(v);
    }
    return out;
  };
  return records.map(walk);
}
