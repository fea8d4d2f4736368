/**
 * The AES-256-GCM primitive the dataKey record format runs on, as a swappable cipher: WebCrypto
 * by default (browser-safe, one promise per call), or a synchronous one that a Node program
 * installs (`happy-session/node` installs `node:crypto`'s). Both produce the same bytes: the
 * vectors of docs/wire.md §10 are checked on each.
 *
 * @see docs/crypto.md, "AES-GCM providers"
 */
export interface AesGcmCipher {
  /** Shown in benchmarks and logs, e.g. `webcrypto`, `node:crypto`. */
  readonly name: string;
  /**
   * Seals `plain` under a 32-byte key and a 12-byte nonce, no AAD, 16-byte tag.
   *
   * @returns `ciphertext || tag`, synchronously when the platform can.
   */
  seal(plain: Uint8Array, key: Uint8Array, nonce: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /**
   * Opens `ciphertext || tag`. Never throws or rejects on bad input.
   *
   * @returns the plaintext, or `undefined` when the tag does not verify.
   */
  open(
    sealed: Uint8Array,
    key: Uint8Array,
    nonce: Uint8Array,
  ): Uint8Array | undefined | Promise<Uint8Array | undefined>;
}
