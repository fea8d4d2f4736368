import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { sdkSourcesForBrowser } from '../../packages/relay/scripts/build-viewer.js';

const cryptoDir = fileURLToPath(new URL('../../packages/sdk/src/crypto/', import.meta.url));
const sources = readdirSync(cryptoDir).filter((name) => name.endsWith('.ts'));
/** The one file that reaches Node (its `require`, for tweetnacl on first use). */
const NODE_LOADER = 'naclLoader.ts';

describe('the SDK crypto layer is browser-safe (docs/architecture.md: the root export runs in a browser)', () => {
  it('has source files to check', () => {
    expect(sources).toContain('records.ts');
    expect(sources).toContain(NODE_LOADER);
  });

  it.each(sources)(
    '%s imports only our files, tweetnacl, @noble/hashes, @noble/ciphers and @stablelib/poly1305, and uses no Buffer',
    (name) => {
      const text = readFileSync(`${cryptoDir}${name}`, 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
      for (const specifier of imports) {
        expect(specifier).toMatch(/^(\.\.?\/|tweetnacl$|@noble\/(hashes|ciphers)\/|@stablelib\/poly1305$)/);
      }
      expect(text).not.toMatch(/\bBuffer\b|\brequire\(/);
      if (name !== NODE_LOADER) expect(text).not.toMatch(/\bprocess\b|getBuiltinModule/);
    },
  );

  it("is bundled for a browser with tweetnacl inside and without the Node loader (the package's browser field for its build, the same swap for its sources)", async () => {
    const bundle = await build({
      entryPoints: [`${cryptoDir}index.ts`],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      plugins: [sdkSourcesForBrowser],
    });
    const js = bundle.outputFiles[0]!.text;
    expect(js).toContain('nacl-fast.js');
    expect(js).not.toContain('getBuiltinModule');
  });
});
