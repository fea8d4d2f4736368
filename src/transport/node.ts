/**
 * The Node-only part of the transport layer (`happy-session/node`): credentials on disk, the Happy
 * server transport (HTTP v3 + socket.io), session creation and `connect()`.
 *
 * @see Happy wire spec §0-§7
 */
export { connect } from './connect.js';
export type { ConnectOptions, GateSettings } from './connect.js';
export { Session } from './session.js';
export type { SessionParts, SessionCloseOptions } from './session.js';
export type { Prompt } from './userInbox.js';
export type { IncomingUserMessage } from './incomingUserMessage.js';
export { toIncomingUserMessage } from './incomingUserMessage.js';
export { loadCredentials, parseAgentKey, parseAccessKey, writeAgentKey } from './credentials.js';
export type { Credentials, CredentialsErrorCode } from './credentials.js';
export { resolveHappyHome, resolveServerUrl, DEFAULT_SERVER_URL } from './happyHome.js';
export type { HappyEnv } from './happyHome.js';
export { mintToken } from './authToken.js';
export { HappyHttp } from './httpClient.js';
export type { HappyHttpOptions } from './httpClient.js';
export { HappyServerTransport } from './happyServerTransport.js';
export type {
  HappyServerTransportOptions,
  SessionUpdate,
  TransportCloseOptions,
} from './happyServerTransport.js';
export { SessionSocket } from './sessionSocket.js';
export type { SessionSocketOptions } from './sessionSocket.js';
export { ServerSessionState } from './serverSessionState.js';
export type { ServerSessionStateOptions, StateChange } from './serverSessionState.js';
export { VersionedState } from './versionedState.js';
export type { VersionedAck, VersionedStateOptions } from './versionedState.js';
export { HttpPushNotifier } from './pushNotifier.js';
export { SocketRpc } from './socketRpc.js';
export { createSessionRecord, openSessionRecord } from './sessionRecord.js';
export type { SessionRecord } from './sessionRecord.js';
export { newSessionKey, existingSessionKey } from './sessionKeys.js';
export type { NewSessionKey } from './sessionKeys.js';
export { sessionMetadata, DEFAULT_FLAVOR } from './sessionMetadata.js';
export type { SessionMetadataOptions } from './sessionMetadata.js';
export { recordFeed } from './recordFeed.js';
