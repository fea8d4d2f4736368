// The v1 records' schemas and types: what today's Happy app stores and renders (docs/v1-format.md).
export {
  V1MediaSchema,
  V1TextEventSchema,
  V1ServiceEventSchema,
  V1ToolCallStartEventSchema,
  V1ToolCallEndEventSchema,
  V1ImageSchema,
  V1FileEventSchema,
  V1TurnStartEventSchema,
  V1TurnEndEventSchema,
  V1StartEventSchema,
  V1StopEventSchema,
  V1EventSchema,
  V1UsageSchema,
  V1EnvelopeSchema,
  V1MetaSchema,
  V1SessionRecordSchema,
  V1WrappedSessionRecordSchema,
  V1AcpProviderSchema,
  V1AcpToolResultRecordSchema,
  V1EventMessageRecordSchema,
  V1RecordSchema,
} from './schemas.js';
export type {
  V1Media,
  V1Event,
  V1EventKind,
  V1Envelope,
  V1Usage,
  V1Meta,
  V1SessionRecord,
  V1WrappedSessionRecord,
  V1AcpProvider,
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
