import { afterAll, beforeAll } from 'vitest';
import type { AesGcmCipher } from 'happy-session/crypto';
import { useAesGcmCipher, webCryptoAesGcm } from 'happy-session/crypto';
import { aesGcmCipher } from 'happy-session/internal';
import { nodeAesGcm } from '../../packages/sdk/src/transport/nodeAesGcm.js';

/** Both AES-GCM providers, for `describe.each`: every vector must hold on each (docs/crypto.md). */
export const ciphers: ReadonlyArray<readonly [string, AesGcmCipher]> = [
  [webCryptoAesGcm.name, webCryptoAesGcm],
  [nodeAesGcm.name, nodeAesGcm],
];

/** Installs `cipher` for the enclosing describe and puts the previous one back after it. */
export function usingCipher(cipher: AesGcmCipher): void {
  let previous: AesGcmCipher;
  beforeAll(() => {
    previous = aesGcmCipher();
    useAesGcmCipher(cipher);
  });
  afterAll(() => useAesGcmCipher(previous));
}
