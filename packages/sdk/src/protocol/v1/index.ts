/**
 * `happy-session/v1`: the v1 records today's Happy app stores and renders, and the codec between
 * them and v2 messages (docs/v1-format.md). The schemas of a record's parts are the codec's own.
 */
// The v1 records: the schema of a whole record and the types a program reads one with.
export { V1RecordSchema } from './schemas.js';
export type {
  V1Event,
  V1EventKind,
  V1Envelope,
  V1SessionRecord,
  V1WrappedSessionRecord,
  V1AcpToolResultRecord,
  V1EventMessageRecord,
  V1Record,
} from './schemas.js';

// The codec: v2 messages to v1 records and back, with what the way back loses.
export { parseV1SessionRecord } from './parse.js';
export type { V1ParseFailure, V1SessionEnvelopeRead } from './parse.js';
export { createV1Encoder } from './toV1.js';
export { decodeV1Record, isV1Record } from './fromV1.js';
export type { V1Decoded, V1RecordPosition } from './fromV1.js';
export type { V1Encoder, V1EncoderOptions } from './toV1.js';
export type { LostField } from './fromV1.js';
