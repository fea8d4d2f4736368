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

/**
 * `stream.backpressure`: the outbox is at its hard bound (`outbox.maxQueued` records or
 * `outbox.maxQueuedBytes`), so message `messageId` was not appended (docs/transport.md,
 * "Backpressure").
 */
export function backpressure(
  messageId: string,
  type: string,
  bound: {
    readonly queued: number;
    readonly bytes: number;
    readonly maxQueued: number;
    readonly maxQueuedBytes: number;
  },
): SdkError {
  return new SdkError(
    'stream.backpressure',
    `Message ${messageId} (${type}) was not appended: ${bound.queued} records (${bound.bytes} bytes) are waiting for the server, the outbox's bound is ${bound.maxQueued} records or ${bound.maxQueuedBytes} bytes.`,
    {
      hint: 'the producer outruns the server: `await writer.ready()` before each append in a loop, then append it again',
      details: { messageId, type, ...bound },
    },
  );
}

/**
 * The error that stopped delivery, naming the messages of the batch it failed (`details.messageIds`)
 * and how many queued behind it were rejected with it (`details.queuedBehind`): a copy with the
 * same code, message, hint and cause, reported once on `errors$`.
 */
export function batchFailure(error: SdkError, messageIds: readonly string[], queuedBehind: number): SdkError {
  const named = Object.create(
    Object.getPrototypeOf(error) as object,
    Object.getOwnPropertyDescriptors(error),
  ) as SdkError;
  Object.defineProperty(named, 'details', {
    value: { ...error.details, messageIds: [...new Set(messageIds)], queuedBehind },
    enumerable: true,
  });
  return named;
}
