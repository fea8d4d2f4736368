import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The error codes of each package's errorCodes.ts against the documentation and the code: each
 * listed code is documented in docs/errors.md, each code thrown in a package's src is listed,
 * no code is listed twice, and the SDK names none of the other packages' codes (they extend
 * `SdkError` without the SDK knowing them).
 */
const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));

/** Each package's code lists, and the unions each one declares. */
const CODE_FILES: Record<string, { file: string; unions: string[] }> = {
  sdk: {
    file: 'sdk/src/errorCodes.ts',
    unions: ['Protocol', 'Crypto', 'Stream', 'Transport', 'Credentials', 'Permissions'].concat([
      'Questions',
      'Media',
      'Sandbox',
      'Integration',
      'Session',
    ]),
  },
  relay: { file: 'relay/src/errorCodes.ts', unions: ['Relay'] },
  viewer: { file: 'relay/src/viewer/page/errorCodes.ts', unions: ['Viewer'] },
  cli: { file: 'cli/src/errorCodes.ts', unions: ['Cli'] },
};
const CODE = /'([a-z]+\.[a-z0-9_]+)'/g;
const UNION = /export type (\w+ErrorCode) =([^;]*);/g;
const THROW_SITES = [
  /new SdkError(?:<[^>]*>)?\(\s*'([a-z]+\.[a-z_]+)'/g,
  /mediaError\(\s*'([a-z]+\.[a-z_]+)'/g,
];

/** Every quoted code of every `export type XxxErrorCode =` union of `file`, in order, duplicates kept. */
function listedCodes(file: string): { union: string; code: string }[] {
  const text = readFileSync(join(PACKAGES, file), 'utf8');
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

const byPackage = Object.fromEntries(
  Object.entries(CODE_FILES).map(([name, { file }]) => [name, listedCodes(file)]),
);
const listed = Object.values(byPackage).flat();
const codes = new Set(listed.map((l) => l.code));

describe('error codes', () => {
  it("are found in each package's errorCodes.ts, in every union it declares", () => {
    expect(byPackage['sdk']!.length).toBeGreaterThan(50);
    for (const [name, { unions }] of Object.entries(CODE_FILES)) {
      expect(new Set(byPackage[name]!.map((l) => l.union))).toEqual(
        new Set(unions.map((union) => `${union}ErrorCode`)),
      );
    }
  });

  it("are named in the SDK's sources only when they are the SDK's", () => {
    const foreign = listed.filter((l) => !byPackage['sdk']!.includes(l)).map((l) => l.code);
    expect(foreign.length).toBeGreaterThan(15);
    const named = sourceFiles(join(PACKAGES, 'sdk/src')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return foreign.filter((code) => text.includes(code)).map((code) => `${file}: ${code}`);
    });
    expect(named).toEqual([]);
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
