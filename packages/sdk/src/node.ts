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
export type { IncomingUserMessage } from './session/incomingUserMessage.js';

// The user's side: an account that lists sessions and opens them as the app does (docs/user-side.md).
export { Account } from './session/account.js';
export type { AccountOptions } from './session/account.js';
export { listSessions } from './transport/sessionList.js';
export type { SessionSummary } from './transport/sessionList.js';

// Keys and the server: find and write credentials and the server as the Happy CLI does.
export { loadCredentials, writeAgentKey, saveAgentKey } from './transport/credentials.js';
export type { Credentials, LoadCredentialsErrorCode } from './transport/credentials.js';
export { resolveHappyHome, resolveServerUrl, DEFAULT_SERVER_URL } from './transport/happyHome.js';
export type { HappyEnv } from './transport/happyHome.js';
export { resolveAccountAccess } from './transport/accountAccess.js';
export type { AccountAccess, AccountAccessOptions } from './transport/accountAccess.js';

// The Happy server's transport, for a program that puts its own writer or reader on a session.
// The transport's parts (HTTP client, socket, heartbeat, session state, session records and keys,
// tokens) are the SDK's own and not exported.
export { HappyServerTransport } from './transport/happyServerTransport.js';
export type {
  HappyServerTransportOptions,
  SessionUpdate,
  TransportCloseOptions,
} from './transport/happyServerTransport.js';

// Error codes: what this entry's failures carry (docs/errors.md).
export type { TransportErrorCode, CredentialsErrorCode } from './errorCodes.js';
