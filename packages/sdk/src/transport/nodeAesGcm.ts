import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { AesGcmCipher } from '../crypto/aesGcmCipher.js';
import { aesGcmCipher, useAesGcmCipher } from '../crypto/aesGcmProvider.js';
import { webCryptoAesGcm } from '../crypto/webCryptoAesGcm.js';

const TAG_LENGTH = 16;

/**
 * AES-256-GCM through `node:crypto`, synchronous: no promise and no thread-pool hop per record,
 * which is most of what WebCrypto cost on the write path (docs/performance.md). Same bytes as
 * {@link webCryptoAesGcm}; the vectors are checked on both.
 *
 * @see docs/crypto.md, "AES-GCM providers"
 */
export const nodeAesGcm: AesGcmCipher = {
  name: 'node:crypto',
  seal(plain, key, nonce) {
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
    const head = cipher.update(plain);
    const tail = cipher.final();
    const out = new Uint8Array(head.length + tail.length + TAG_LENGTH);
    out.set(head, 0);
    out.set(tail, head.length);
    out.set(cipher.getAuthTag(), head.length + tail.length);
    return out;
  },
  open(sealed, key, nonce) {
    if (sealed.length < TAG_LENGTH) return undefined;
    const end = sealed.length - TAG_LENGTH;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
      decipher.setAuthTag(sealed.subarray(end));
      const head = decipher.update(sealed.subarray(0, end));
      const tail = decipher.final();
      if (tail.length === 0) return new Uint8Array(head.buffer, head.byteOffset, head.length);
      const out = new Uint8Array(head.length + tail.length);
      out.set(head, 0);
      out.set(tail, head.length);
      return out;
    } catch {
      return undefined;
    }
  },
};

/**
 * Makes {@link nodeAesGcm} the record cipher, unless a program installed a cipher of its own.
 * `happy-session/node` calls it when it loads, and so does every path that reaches a Happy server
 * (`connect()`, `Account.open()`).
 */
export function installNodeAesGcm(): void {
  if (aesGcmCipher() === webCryptoAesGcm) useAesGcmCipher(nodeAesGcm);
}
