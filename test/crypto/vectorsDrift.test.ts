import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { vectors } from './fixtures.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const sharedCopy = `${repoRoot}../shared/vectors/happy-crypto.json`;
const committedCopy = `${repoRoot}test/vectors/happy-crypto.json`;

describe('crypto vectors file', () => {
  it('holds every section the crypto tests reproduce', () => {
    expect(Object.keys(vectors)).toEqual(
      expect.arrayContaining([
        'keyTreeRepoVector',
        'account',
        'legacy',
        'dataKey',
        'dataKeySmall',
        'dataEncryptionKey',
        'blob',
        'terminalPairing',
        'rpc',
      ]),
    );
  });

  it('equals the shared copy whenever the shared copy is present (drift check)', () => {
    const committed: unknown = JSON.parse(readFileSync(committedCopy, 'utf8'));
    if (existsSync(sharedCopy)) {
      expect(committed).toEqual(JSON.parse(readFileSync(sharedCopy, 'utf8')));
    } else {
      // Outside the workspace (CI, a published checkout) the committed copy is the source of truth.
      expect(committed).toEqual(vectors);
    }
  });
});
