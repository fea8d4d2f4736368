/**
 * `happy-session/internal`: not a public entry. What the embedded relay (happy-session-relay), the
 * command line (happy-session-cli) and this repository's tests and benchmarks share with the SDK
 * beyond the public entries: the Happy server's HTTP and socket shapes, crypto primitives, the
 * transport's parts, the ledgers and the limits. Its names may change in any release, without a
 * CHANGELOG entry; it has no API report and is not counted in docs/api.md (docs/architecture.md,
 * "The internal entry").
 */

// The Happy server's HTTP and socket shapes: one definition for the SDK's transport, the embedded
// relay and its web viewer (docs/wire.md).
export { AuthChallengeBodySchema, AuthResponseSchema } from './wire/auth.js';
export {
  CreateSessionBodySchema,
  CreateSessionResponseSchema,
  SessionListSchema,
  SessionPageSchema,
  SessionRowSchema,
} from './wire/sessions.js';
export type { CreateSessionBody, SessionRow } from './wire/sessions.js';
export {
  AppendMessagesBodySchema,
  AppendResponseSchema,
  AppendedMessageSchema,
  EncryptedContentSchema,
  MAX_APPEND_BATCH,
  MAX_READ_LIMIT,
  ReadResponseSchema,
  StoredMessageSchema,
} from './wire/messages.js';
export type { AppendMessagesBody, AppendedMessage, ReadResponse, StoredMessage } from './wire/messages.js';
export { NewMessageBodySchema, UpdateSessionBodySchema } from './wire/updates.js';
export type { UpdateSessionBody } from './wire/updates.js';
export {
  DownloadRequestBodySchema,
  DownloadTicketSchema,
  MAX_ATTACHMENT_BYTES,
  UploadRequestBodySchema,
  UploadTicketSchema,
} from './wire/attachments.js';
export type { UploadTicket } from './wire/attachments.js';
export { RELAY_INFO_PATH, RelayInfoSchema } from './wire/relayInfo.js';
export type { RelayInfo } from './wire/relayInfo.js';
export { expectShape } from './wire/expectShape.js';

// Crypto primitives under the public crypto entry: the relay's tickets and viewer, the CLI's
// pairing, and the known-answer tests.
export { encodeBase64Url, decodeBase64Url } from './crypto/base64.js';
export { randomBytes } from './crypto/random.js';
export { KEY_LENGTH, assertLength } from './crypto/keyLength.js';
export { deriveKey } from './crypto/deriveKey.js';
export { signChallenge, authChallengeBody, verifyChallenge, analyticsId } from './crypto/accountKeys.js';
export type { AuthChallengeBody } from './crypto/accountKeys.js';
export { secretboxSeal, secretboxOpen } from './crypto/secretbox.js';
export { aesGcmSeal, aesGcmOpen } from './crypto/aesGcm.js';
export { aesGcmCipher } from './crypto/aesGcmProvider.js';
export { encryptRecordBase64 } from './crypto/records.js';
export { masterBlobKey, sessionBlobKey } from './crypto/blob.js';
export { sealBlobStream, sealedBlobBytes } from './crypto/sealedBlob.js';
export type { SealedBlob, SealedBytes } from './crypto/sealedBlob.js';

// The transport's parts: the CLI's login and the transport tests.
export { HappyHttp } from './transport/httpClient.js';
export type { HappyHttpOptions } from './transport/httpClient.js';
export { mintToken } from './transport/authToken.js';
export { AccountToken } from './transport/accountToken.js';
export { HeartbeatClock } from './transport/heartbeatClock.js';
export { VersionedState } from './transport/versionedState.js';
export type { VersionedAck, VersionedStateOptions } from './transport/versionedState.js';
export { createSessionRecord } from './transport/sessionRecord.js';
export { formatShownBy } from './transport/serverFormat.js';
export { callSessionRpc } from './transport/sessionRpc.js';

// The record feed, retries and iteration the writer and the reader use.
export { retrying } from './ports/retryPolicy.js';
export { recordFeed } from './ports/recordFeed.js';
export { TailCheckPacer } from './ports/tailCheckPacer.js';
export { asyncIterableOf } from './ports/asyncIterable.js';

// The ledger of open permission requests that fold and the gate build on.
export { PERMISSION_SETTLED_PREFIX, ledgerOf } from './stream/permissionLedger.js';
export type { LedgerMessage } from './stream/permissionLedger.js';

// Limits the tests check the writer against (docs/transport.md). The entry stays browser-safe (the
// relay's viewer bundles it), so the Node-only rooms' limits are imported from their modules.
export { MAX_END_TEXT_BYTES } from './stream/endText.js';
export { MAX_RECORD_BYTES } from './stream/recordSize.js';
export { MAX_TEXT_BYTES } from './stream/splitText.js';
export type { TextStreamTimers } from './stream/textStream.js';

// The v1 schemas of a record's parts.
export { V1AcpToolResultRecordSchema, V1EnvelopeSchema } from './protocol/v1/schemas.js';

// How close a repeated stop signal counts as relayed by a parent (the tests of a person's second signal).
export { RELAYED_SIGNAL_WINDOW_MS } from './session/relayedSignal.js';

// A permission preview as text: the v1 record, `watch` and `answer` show the same summary.
export { formatBytes, previewExitText, previewFileLine, previewSummary } from './protocol/previewSummary.js';
