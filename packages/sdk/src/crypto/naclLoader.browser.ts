import nacl from 'tweetnacl';
import type { NaclApi } from './naclLoader.js';

/**
 * The browser's tweetnacl: bundled statically (bundlers pick this file over `naclLoader.ts`
 * through the package's `browser` field, docs/architecture.md, "Encryption").
 */
export function loadNacl(): NaclApi {
  return nacl;
}
