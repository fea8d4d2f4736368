import { createRequire } from 'node:module';
import type { io as IoFunction } from 'socket.io-client';

let loaded: typeof IoFunction | undefined;

/**
 * socket.io-client's `io`, loaded when the first socket opens rather than when the package is
 * imported: importing `happy-session/node` stays quick (docs/performance.md, "Install size and cold imports").
 * Synchronous, because a transport opens its socket in its constructor.
 */
export function socketIo(): typeof IoFunction {
  loaded ??= (createRequire(import.meta.url)('socket.io-client') as { io: typeof IoFunction }).io;
  return loaded;
}
