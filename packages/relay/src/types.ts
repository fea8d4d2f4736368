import type { Logger } from 'happy-session';

/**
 * Options of the embedded relay. Every field is optional: `startRelay()` alone gives an in-memory
 * relay on a free port of 127.0.0.1.
 */
export interface RelayOptions {
  /** TCP port; `0` or undefined picks a free port. */
  port?: number;
  /** Interface to bind; defaults to `127.0.0.1` so nothing is exposed by accident. */
  host?: string;
  /**
   * Directory for the SQLite database and the attachment files. Undefined keeps everything in
   * memory (attachments then live in SQLite too) and forgets it on close.
   */
  dataDir?: string;
  /** Where the relay reports what it does; silent by default. */
  logger?: Logger;
  /**
   * Base URL put into upload and download URLs (like the real server's `PUBLIC_URL`). Without it
   * the relay uses the forwarded host or the `Host` header of the request (docs/wire.md §8.1).
   */
  publicUrl?: string;
  /** How long an `rpc-call` waits for a target to register the method; 15 000 ms like the real server (§7.1). */
  rpcWaitMs?: number;
  /** How long an `rpc-call` waits for the target's answer; 30 000 ms like the real server (§7.1). */
  rpcCallTimeoutMs?: number;
}

/** A running relay. */
export interface Relay {
  /** Base URL of the HTTP API and of the socket (path `/v1/updates`), e.g. `http://127.0.0.1:34567`. */
  readonly url: string;
  /** The bound TCP port. */
  readonly port: number;
  /** Disconnects every socket, stops the HTTP server and closes the database. Safe to call twice. */
  close(): Promise<void>;
}
