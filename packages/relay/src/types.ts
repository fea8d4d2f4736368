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
  /** What one account may use; each unset field keeps its default (docs/relay.md, "Limits"). */
  limits?: RelayLimits;
}

/**
 * What one account may use of a relay, so that one client cannot starve the others on a shared
 * machine. Each limit is answered in the real server's error shapes (docs/relay.md, "Limits").
 */
export interface RelayLimits {
  /** Bytes of one `POST /v3/sessions/:id/messages` body (a batch of up to 100 records); default 32 MiB. */
  messageBatchBytes?: number;
  /** Records an account may write per minute, over HTTP and the socket; default 120 000. */
  messagesPerMinute?: number;
  /** Bytes of attachments an account may keep stored; default 1 GiB. */
  attachmentQuotaBytes?: number;
  /** Sockets an account may have connected at once; default 128. */
  socketsPerAccount?: number;
  /** `rpc-call`s of an account waiting for their answer at once; default 128. */
  rpcCallsInFlight?: number;
}

/** A running relay. */
export interface Relay {
  /** Base URL of the HTTP API and of the socket (path `/v1/updates`), e.g. `http://127.0.0.1:34567`. */
  readonly url: string;
  /** The bound TCP port. */
  readonly port: number;
  /**
   * A link that opens the web viewer on the account of `masterSecret` once (docs/viewer.md): the
   * relay keeps the secret only encrypted, under a key that exists only in the link's fragment,
   * and forgets it when the page has fetched it (or when the relay stops). Print it to the
   * account's owner; after its first use a copy of it in a log opens nothing.
   *
   * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
   */
  viewerLink(masterSecret: Uint8Array, sessionId?: string): string;
  /**
   * Stops taking connections, lets requests under way finish (a few seconds at most), disconnects
   * every socket, checkpoints the database and closes it. Safe to call twice.
   */
  close(): Promise<void>;
}
