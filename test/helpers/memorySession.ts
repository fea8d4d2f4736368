import { generateDataKey } from 'happy-session/crypto';
import type { RecordKey } from 'happy-session/crypto';
import { SessionReader, SessionWriter, MemoryTransport } from 'happy-session';
import type { SessionWriterOptions } from 'happy-session';

/** A writer and a reader sharing one in-memory session with a fresh data key. */
export function memorySession(options: Partial<SessionWriterOptions> = {}) {
  const transport = new MemoryTransport();
  const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };
  const writer = new SessionWriter({ transport, key, ...options });
  const reader = new SessionReader({ transport, key });
  return { transport, key, writer, reader };
}

const ID_FIELDS = ['turn', 'callId', 'parentId', 'agentId'] as const;

/**
 * Drops `id` and `time` and renames every turn / call / agent id to a label by order of first
 * appearance, so that two streams compare field by field whatever ids they were given.
 */
export function normaliseIds(messages: readonly object[]): Record<string, unknown>[] {
  const labels = new Map<string, string>();
  const label = (value: string): string => {
    let l = labels.get(value);
    if (!l) {
      l = `#${labels.size + 1}`;
      labels.set(value, l);
    }
    return l;
  };
  return messages.map((m) => {
    const { id: _id, time: _time, ...rest } = m as Record<string, unknown>;
    for (const f of ID_FIELDS) if (typeof rest[f] === 'string') rest[f] = label(rest[f] as string);
    return rest;
  });
}
