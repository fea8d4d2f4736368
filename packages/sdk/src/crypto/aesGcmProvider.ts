import type { AesGcmCipher } from './aesGcmCipher.js';
import { webCryptoAesGcm } from './webCryptoAesGcm.js';

let current: AesGcmCipher = webCryptoAesGcm;

/**
 * Makes `cipher` the AES-256-GCM implementation every dataKey record seal and open uses from now
 * on, in this JavaScript realm. `happy-session/node` installs `nodeAesGcm` (synchronous
 * `node:crypto`) when it loads; browsers keep {@link webCryptoAesGcm}. Call it only with a cipher
 * that produces the vectors' bytes.
 *
 * @see docs/crypto.md, "AES-GCM providers"
 */
export function useAesGcmCipher(cipher: AesGcmCipher): void {
  current = cipher;
}

/** The cipher dataKey records are sealed and opened with now (see {@link useAesGcmCipher}). */
export function aesGcmCipher(): AesGcmCipher {
  return current;
}
