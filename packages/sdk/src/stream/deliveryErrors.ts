import { SdkError } from '../errors.js';

/**
 * `stream.undelivered`: the messages whose records were not stored when a bounded wait ended
 * (`flush({timeoutMs, signal})`, `close({deadlineMs, signal})`); `details.messageIds` lists them
 * in append order (docs/transport.md, "Bounded waits").
 */
export function undelivered(messageIds: readonly string[], why: 'timeout' | 'aborted'): SdkError {
  const ids = [...new Set(messageIds)];
  const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, …` : ids.join(', ');
  return new SdkError(
    'stream.undelivered',
    `${ids.length} message${ids.length === 1 ? ' was' : 's were'} not stored ${why === 'timeout' ? 'before the deadline' : 'before the wait was aborted'}: ${shown}.`,
    {
      hint: 'details.messageIds lists them; the server did not confirm them (see writer.errors$ for why), so they may be missing from the stream',
      details: { messageIds: ids, reason: why },
    },
  );
}

/** `transport.bad_response`: the server's answer to an append lists no row for this record's `localId`. */
export function missingAck(localId: string, messageId: string): SdkError {
  return new SdkError(
    'transport.bad_response',
    `The server's answer to the append has no acknowledgement for record ${localId}.`,
    {
      hint: 'the record may or may not be stored; check that the server URL points at a Happy server or the happy-session relay',
      details: { localId, messageId },
    },
  );
}

/** `stream.delivery_stalled`: no batch has been stored for `forMs` because of `cause`. */
export function deliveryStalled(forMs: number, pending: number, cause: unknown): SdkError {
  return new SdkError(
    'stream.delivery_stalled',
    `No record could be stored for ${Math.round(forMs / 1000)} s; ${pending} are waiting: ${cause instanceof Error ? cause.message : String(cause)}`,
    {
      hint: 'the writer keeps retrying; fix the cause (see error.cause), or give close() a deadline to stop',
      cause,
      details: { forMs: Math.round(forMs), pending },
    },
  );
}
