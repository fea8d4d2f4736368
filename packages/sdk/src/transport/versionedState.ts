import { decryptRecord, encryptRecordBase64 } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import { SdkError, isSdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { RetryPolicy } from '../ports/retryPolicy.js';
import { pause } from '../ports/waits.js';
import type { StateObject } from '../ports/sessionState.js';
import { STORAGE_FULL_HINT } from './httpErrors.js';

/** What the server acked for one versioned write (docs/wire.md §2.4). */
export type VersionedAck =
  | { readonly result: 'success'; readonly version: number }
  | { readonly result: 'version-mismatch'; readonly version: number; readonly value: string | null }
  | { readonly result: 'error'; readonly storageFull?: boolean };

/** Options of a {@link VersionedState}. */
export interface VersionedStateOptions {
  /** `metadata` or `agentState`, for messages. */
  readonly field: string;
  readonly key: RecordKey;
  readonly value: StateObject;
  readonly version: number;
  /** Sends the encrypted value with the expected version; throws `transport.timeout` without an ack. */
  readonly send: (ciphertext: string, expectedVersion: number) => Promise<VersionedAck>;
  /** Attempts per update before giving up; default 8. */
  readonly maxAttempts?: number;
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  readonly logger?: Logger;
}

/**
 * One encrypted, versioned side record of a session (metadata or agentState) under optimistic
 * concurrency (docs/wire.md §4.4): writes are serialized; on `version-mismatch` the server's value
 * is decrypted and the caller's update function re-applied to it, so fields written by the app
 * are never clobbered; a failed or unacked write is retried by the SDK's one retry policy
 * (`ports/retryPolicy.ts`), up to `maxAttempts` tries.
 */
export class VersionedState {
  private current: StateObject;
  private currentVersion: number;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly logger: Logger;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: VersionedStateOptions) {
    this.current = options.value;
    this.currentVersion = options.version;
    this.logger = options.logger ?? silentLogger;
    this.policy = new RetryPolicy({
      maxAttempts: options.maxAttempts ?? 8,
      baseDelayMs: options.retryDelayMs ?? 100,
      maxDelayMs: options.maxRetryDelayMs ?? 3000,
    });
  }

  /** The latest known value. */
  get value(): Readonly<StateObject> {
    return this.current;
  }

  /** The version of {@link VersionedState.value}. */
  get version(): number {
    return this.currentVersion;
  }

  /** Applies `update` to the current value and stores it; resolves with the stored value. */
  update(update: (current: StateObject) => StateObject): Promise<StateObject> {
    const run = this.queue.then(() => this.write(update));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Adopts a value another writer stored (an `update-session`), only when its version is newer
   * than what is held. Returns true when it was adopted.
   */
  async applyRemote(ciphertext: string | null, version: number): Promise<boolean> {
    if (version <= this.currentVersion) return false;
    const value = await this.decrypt(ciphertext);
    // Decryption is async: a newer version may have arrived meanwhile.
    if (version <= this.currentVersion) return false;
    this.current = value;
    this.currentVersion = version;
    return true;
  }

  private async write(update: (current: StateObject) => StateObject): Promise<StateObject> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.policy.maxAttempts; attempt++) {
      const next = update(structuredClone(this.current));
      const expected = this.currentVersion;
      const ciphertext = await encryptRecordBase64(next, this.options.key);
      let ack: VersionedAck;
      try {
        ack = await this.options.send(ciphertext, expected);
      } catch (error) {
        lastError = error;
        if (await this.backOff(error, attempt, 'got no ack')) continue;
        break;
      }
      if (ack.result === 'success') {
        if (ack.version > this.currentVersion) {
          this.current = next;
          this.currentVersion = ack.version;
        }
        return next;
      }
      if (ack.result === 'version-mismatch') {
        this.logger.debug(`${this.options.field} version mismatch, merging`, {
          expected,
          server: ack.version,
        });
        // The server's answer is authoritative, newer or not (our cache may be ahead of a reset).
        this.current = await this.decrypt(ack.value);
        this.currentVersion = ack.version;
        continue;
      }
      // The server answers `error` when it failed to store the value: retried like a 5xx.
      lastError = ack.storageFull
        ? new SdkError(
            'transport.storage_full',
            `The server could not store the ${this.options.field}: its disk is full.`,
            { hint: STORAGE_FULL_HINT },
          )
        : new SdkError('transport.server_error', `The server failed to store the ${this.options.field}.`);
      if (!(await this.backOff(lastError, attempt, 'was answered with an error'))) break;
    }
    throw new SdkError(
      lastError instanceof SdkError ? lastError.code : 'transport.rejected',
      `Could not store the session ${this.options.field} after ${this.policy.maxAttempts} attempts.`,
      {
        hint:
          isSdkError(lastError) && lastError.code === 'transport.storage_full'
            ? STORAGE_FULL_HINT
            : 'the server sends no answer for a session of another account; check the credentials and the session id',
        cause: lastError,
      },
    );
  }

  /** Waits as the retry policy says after a failed try; false when there is to be no other try. */
  private async backOff(error: unknown, attempt: number, what: string): Promise<boolean> {
    const delay = this.policy.delayAfter(error, attempt);
    if (delay === undefined) return false;
    this.logger.warn(`${this.options.field} update ${what}, retrying`, {
      attempt,
      delayMs: Math.round(delay),
    });
    await pause(delay);
    return true;
  }

  private async decrypt(ciphertext: string | null): Promise<StateObject> {
    if (ciphertext === null) return {};
    const decrypted = await decryptRecord(ciphertext, this.options.key);
    if (!decrypted.ok) {
      // The app reads an undecryptable value as empty too; say so rather than fail every write.
      this.logger.warn(`stored ${this.options.field} does not decrypt; treating it as empty`, {
        code: decrypted.error.code,
      });
      return {};
    }
    const value = decrypted.value;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as StateObject) : {};
  }
}
