/**
 * `happy-session/node`: a live session on a Happy server or the embedded relay (Node only).
 * `connect()` picks the server and the keys as the Happy CLI does, creates or opens a session, and
 * returns a `Session` with its writer, reader, user input, RPC and permission gate. The user's side
 * of a session (what the app does: list, read, send, stop, answer) is `Account`, whose
 * `session(id)` opens a `UserSession` (exported from `happy-session/user`, since the browser has it too).
 * See docs/transport.md. Loading it makes records seal and open with `node:crypto`'s synchronous
 * AES-256-GCM instead of WebCrypto (docs/crypto.md, "AES-GCM providers"), requests go through
 * `node:http` with keep-alive instead of `fetch` (docs/transport.md, "HTTP"), and base64 is
 * `Buffer`'s.
 */
import { installNodePlatform } from './transport/nodePlatform.js';

installNodePlatform();

// The agent's side: connect to a server and get a session with its writer, reader and gate.
export { connect } from './session/connect.js';
export type { ConnectOptions, GateSettings } from './session/connect.js';
export { DEFAULT_SERVER_WAIT_MS } from './session/serverWait.js';
export { DEFAULT_SHUTDOWN_DEADLINE_MS } from './session/shutdownSignals.js';
export type { ShutdownOptions } from './session/shutdownSignals.js';
export { Session } from './session/session.js';
export type { SessionParts, SessionCloseOptions } from './session/session.js';
export type { InputErrorCode, InputErrorEvent, Prompt } from './session/userInbox.js';
export { toIncomingUserMessage } from './session/incomingUserMessage.js';
export type { IncomingUserMessage } from './session/incomingUserMessage.js';

// The user's side: an account that lists sessions and opens them as the app does (docs/user-side.md).
export { Account } from './session/account.js';
export type { AccountOptions } from './session/account.js';
export { listSessions } from './transport/sessionList.js';
export type { SessionSummary } from './transport/sessionList.js';
export { connectUserSocket } from './transport/userSocket.js';
export { UserSessionTransport } from './transport/userSessionTransport.js';

// Keys and the server: find and write credentials and the server as the Happy CLI does.
export {
  loadCredentials,
  parseAgentKey,
  parseAccessKey,
  writeAgentKey,
  saveAgentKey,
} from './transport/credentials.js';
export type { Credentials, LoadCredentialsErrorCode } from './transport/credentials.js';
export { resolveHappyHome, resolveServerUrl, DEFAULT_SERVER_URL } from './transport/happyHome.js';
export type { HappyEnv } from './transport/happyHome.js';
export { resolveAccountAccess } from './transport/accountAccess.js';
export { formatShownBy } from './transport/serverFormat.js';
export type { StreamFormat } from './transport/serverFormat.js';
export type { AccountAccess, AccountAccessOptions } from './transport/accountAccess.js';
export { mintToken } from './transport/authToken.js';
export { AccountToken } from './transport/accountToken.js';

// The Happy server's implementations of the ports, for a program that assembles its own session.
export { HappyHttp } from './transport/httpClient.js';
export type { HappyHttpOptions } from './transport/httpClient.js';
export { HappyServerTransport } from './transport/happyServerTransport.js';
export type {
  HappyServerTransportOptions,
  SessionUpdate,
  TransportCloseOptions,
} from './transport/happyServerTransport.js';
export { SessionSocket } from './transport/sessionSocket.js';
export type { SessionSocketOptions } from './transport/sessionSocket.js';
export { HeartbeatClock } from './transport/heartbeatClock.js';
export type { ClockedBeat } from './transport/heartbeatClock.js';
export { ServerSessionState } from './transport/serverSessionState.js';
export type { ServerSessionStateOptions, StateChange } from './transport/serverSessionState.js';
export { VersionedState } from './transport/versionedState.js';
export type { VersionedAck, VersionedStateOptions } from './transport/versionedState.js';
export { HttpPushNotifier } from './transport/pushNotifier.js';
export { SocketRpc } from './transport/socketRpc.js';
export {
  createSessionRecord,
  openSessionRecord,
  prepareSessionRecord,
  postSessionRecord,
} from './transport/sessionRecord.js';
export type { SessionRecord, PreparedSessionRecord } from './transport/sessionRecord.js';
export { newSessionKey, existingSessionKey } from './transport/sessionKeys.js';
export type { NewSessionKey } from './transport/sessionKeys.js';
export { sessionMetadata, DEFAULT_FLAVOR } from './transport/sessionMetadata.js';
export type { SessionMetadataOptions } from './transport/sessionMetadata.js';

// The record cipher: `node:crypto`'s AES-GCM, which loading this entry installs (docs/crypto.md, "AES-GCM providers").
export { nodeAesGcm, installNodeAesGcm } from './transport/nodeAesGcm.js';

// Error codes: what this entry's failures carry (docs/errors.md).
export type { TransportErrorCode, CredentialsErrorCode } from './errorCodes.js';
