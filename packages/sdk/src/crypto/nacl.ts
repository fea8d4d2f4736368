import type { NaclApi } from './naclLoader.js';
import { loadNacl } from './naclLoader.js';

/** Nonce length of NaCl `box` and `secretbox` (XSalsa20). */
export const NACL_NONCE_LENGTH = 24;
/** Authenticator (Poly1305 tag) length of NaCl `box` and `secretbox`. */
export const NACL_TAG_LENGTH = 16;
/** Ed25519 secret key length in NaCl's layout: `seed(32) || publicKey(32)`. */
export const SIGN_SECRET_KEY_LENGTH = 64;
/** Ed25519 public key length. */
export const SIGN_PUBLIC_KEY_LENGTH = 32;
/** Ed25519 signature length. */
export const SIGNATURE_LENGTH = 64;

let loaded: NaclApi | undefined;

/**
 * tweetnacl, loaded on first use rather than at import: on Node, importing its CommonJS build from
 * an ES module costs a parse of all of it (docs/performance.md, "Install size and cold imports"),
 * and a program that never opens a legacy record or a box pays nothing.
 */
export function nacl(): NaclApi {
  loaded ??= loadNacl();
  return loaded;
}
