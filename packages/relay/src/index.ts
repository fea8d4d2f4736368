/**
 * The embedded Happy-compatible relay (Node only): the real Happy server's wire for everything an
 * agent SDK and a viewer use, on one machine, with no account (docs/wire.md §0-§8).
 */
export { startRelay } from './server.js';
export { runRelayServer } from './serve.js';
export { viewerUrl } from './viewer/url.js';
export { newViewerLink } from './viewer/newLink.js';
export type { NewViewerLinkOptions } from './viewer/newLink.js';
export type { Relay, RelayLimits, RelayOptions } from './types.js';
export type { RelayErrorCode } from './errorCodes.js';
