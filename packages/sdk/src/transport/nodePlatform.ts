import { useBase64Encoder } from '../crypto/base64.js';
import { installNodeAesGcm } from './nodeAesGcm.js';
import { installNodeHttpExchange } from './nodeHttpExchange.js';

/** Standard base64 by `Buffer`: the same text as the portable encoder, about four times as fast. */
export function nodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Puts Node's own primitives where the SDK has a portable default: `node:crypto` AES-256-GCM for
 * records (docs/crypto.md, "AES-GCM providers"), `node:http` with keep-alive for requests
 * (docs/transport.md, "HTTP") and `Buffer` base64. Each gives the same bytes as the default and
 * costs less per record (docs/performance.md, "Write throughput"). `happy-session/node` calls it
 * when it loads, and so does every path that reaches a Happy server (`connect()`,
 * `Account.open()`); a cipher or exchange a program installed itself is kept.
 */
export function installNodePlatform(): void {
  installNodeAesGcm();
  installNodeHttpExchange();
  useBase64Encoder(nodeBase64);
}
