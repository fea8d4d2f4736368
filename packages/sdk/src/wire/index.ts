/**
 * `happy-session/wire`: the Happy server's HTTP and socket shapes, as zod schemas (docs/wire.md).
 * The one definition shared by the SDK's transport, the embedded relay and its web viewer.
 */
// The Happy server's HTTP and socket shapes, for a transport or a server of its own (docs/wire.md).
export { AuthChallengeBodySchema, AuthResponseSchema } from './auth.js';
export {
  CreateSessionBodySchema,
  CreateSessionResponseSchema,
  SessionListSchema,
  SessionPageSchema,
  SessionRowSchema,
} from './sessions.js';
export type { CreateSessionBody, SessionRow } from './sessions.js';
export {
  AppendMessagesBodySchema,
  AppendResponseSchema,
  AppendedMessageSchema,
  EncryptedContentSchema,
  MAX_APPEND_BATCH,
  MAX_READ_LIMIT,
  ReadResponseSchema,
  StoredMessageSchema,
} from './messages.js';
export type { AppendMessagesBody, AppendedMessage, ReadResponse, StoredMessage } from './messages.js';
export { NewMessageBodySchema, UpdateSessionBodySchema } from './updates.js';
export type { UpdateSessionBody } from './updates.js';
export {
  DownloadRequestBodySchema,
  DownloadTicketSchema,
  MAX_ATTACHMENT_BYTES,
  UploadRequestBodySchema,
  UploadTicketSchema,
} from './attachments.js';
export type { UploadTicket } from './attachments.js';
export { RELAY_INFO_PATH, RelayInfoSchema } from './relayInfo.js';
export type { RelayInfo } from './relayInfo.js';
export { expectShape } from './expectShape.js';
