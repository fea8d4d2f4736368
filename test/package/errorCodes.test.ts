import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The error codes of packages/sdk/src/errorCodes.ts against the documentation and the code: each
 * listed code is documented in docs/errors.md, each code thrown in a package's src is listed,
 * and no code is listed twice.
 */
const ERROR_CODES = fileURLToPath(new URL('../../packages/sdk/src/errorCodes.ts', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));
const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

const LAYERS = ['Protocol', 'Crypto', 'Stream', 'Transport', 'Credentials', 'Permissions'].concat([
  'Questions',
  'Media',
  'Sandbox',
  'Integration',
  'Session',
  'Relay',
  'Viewer',
  'Cli',
]);
const CODE = /'([a-z]+\.[a-z0-9_]+)'/g;
const UNION = /export type (\w+ErrorCode) =([^;]*);/g;
const THROW_SITES = [
  /new SdkError(?:<[^>]*>)?\(\s*'([a-z]+\.[a-z_]+)'/g,
  /mediaError\(\s*'([a-z]+\.[a-z_]+)'/g,
];

/** Every quoted code of every `export type XxxErrorCode =` union, in order, duplicates kept. */
function listedCodes(): { union: string; code: string }[] {
  const text = readFileSync(ERROR_CODES, 'utf8');
  return [...text.matchAll(UNION)].flatMap(([, union, body]) =>
    [...body!.matchAll(CODE)].map(([, code]) => ({ union: union!, code: code! })),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(?:ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each code used at a throw site in packages/<name>/src, with the files that use it. */
function thrownCodes(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const packages = readdirSync(PACKAGES, { withFileTypes: true }).filter((e) => e.isDirectory());
  for (const pkg of packages) {
    let files: string[];
    try {
      files = sourceFiles(join(PACKAGES, pkg.name, 'src'));
    } catch {
      continue; // a package without src
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of THROW_SITES) {
        for (const [, code] of text.matchAll(pattern)) {
          const where = file.slice(PACKAGES.length - 'packages/'.length);
          used.set(code!, [...new Set([...(used.get(code!) ?? []), where])]);
        }
      }
    }
  }
  return used;
}

const listed = listedCodes();
const codes = new Set(listed.map((l) => l.code));

describe('error codes', () => {
  it('are found in errorCodes.ts, in every layer union', () => {
    expect(listed.length).toBeGreaterThan(50);
    expect(new Set(listed.map((l) => l.union))).toEqual(new Set(LAYERS.map((layer) => `${layer}ErrorCode`)));
  });

  it('are each documented in docs/errors.md', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect([...codes].filter((code) => !doc.includes(`\`${code}\``))).toEqual([]);
  });

  it('include every code thrown in packages/*/src', () => {
    const used = thrownCodes();
    expect(used.size).toBeGreaterThan(30);
    const unlisted = Object.fromEntries([...used].filter(([code]) => !codes.has(code)));
    expect(unlisted).toEqual({});
  });

  it('are listed once', () => {
    const seen = new Set<string>();
    const twice = listed.filter(({ code }) => seen.size === seen.add(code).size).map((l) => l.code);
    expect(twice).toEqual([]);
  });
});
