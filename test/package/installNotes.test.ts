import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * The README's install section tells the truth about what `npm ci` prints (README.md, "Which
 * Node"): npm warns `EBADENGINE` for every installed package whose `engines.node` the running Node
 * does not satisfy. Read from the lock file, those are the packages the README's table must name,
 * each with its range and a reason, no more and no fewer, on the oldest Node the packages accept.
 * npm 11 also warns about each install script the root's `allowScripts` does not name.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
  readonly hasInstallScript?: boolean;
}

/** Whether npm warns about `entry` on Node `version`: an `engines.node` range it does not satisfy. */
function warnsOn(version: string, entry: LockEntry): boolean {
  const engines = entry.engines;
  // The old array form is not checked by npm.
  if (!engines || Array.isArray(engines)) return false;
  const range = (engines as { node?: string }).node;
  return range !== undefined && !semver.satisfies(version, range, { includePrerelease: true });
}

/** The package name of a lock path: `node_modules/a/node_modules/@b/c` is `@b/c`. */
function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** The rows of the README's table of packages that warn: name, range and reason. */
function readmeRows(): Array<{ name: string; range: string; why: string }> {
  const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
  const start = readme.indexOf('\n### Which Node\n');
  expect(start, 'README.md has a "Which Node" section').toBeGreaterThan(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const table = section.slice(section.indexOf('| Package (in the lock file)'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name, range, why] = line
        .split('|')
        .slice(1, 4)
        .map((cell) => cell.trim());
      return { name: name!.replace(/`/g, ''), range: range!.replace(/`/g, ''), why: why! };
    });
}

const root = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(`${ROOT}/package-lock.json`, 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const oldest = semver.minVersion(root.engines.node)!.version;
/** Installed packages (not the workspace's own folders) that warn on the oldest Node accepted. */
const warned = Object.entries(lock.packages).filter(
  ([path, entry]) => path.includes('node_modules/') && !entry.link && warnsOn(oldest, entry),
);

describe('the README explains every EBADENGINE warning of npm ci on Node 20', () => {
  it('judges a range as npm does (positive and negative controls)', () => {
    expect(warnsOn('20.19.0', { engines: { node: '>=22' } })).toBe(true);
    expect(warnsOn('20.19.0', { engines: { node: '>=22.12.0' } })).toBe(true);
    expect(warnsOn('20.19.0', { engines: { node: '>=18' } })).toBe(false);
    expect(warnsOn('20.19.0', { engines: { node: '^20.19.0 || >=22.12.0' } })).toBe(false);
    expect(warnsOn('20.19.0', { engines: ['node >= 99'] })).toBe(false);
    expect(warnsOn('20.19.0', {})).toBe(false);
    expect(oldest).toBe('20.19.0');
  });

  it('names each package whose engines.node excludes the oldest Node accepted, with its range and why', () => {
    const rows = readmeRows();
    expect(rows.length).toBeGreaterThan(0);
    const fromLock = warned.map(([path, entry]) => ({
      name: nameOf(path),
      range: (entry.engines as { node: string }).node,
    }));
    expect(
      rows.map(({ name, range }) => ({ name, range })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual(fromLock.sort((a, b) => a.name.localeCompare(b.name)));
    for (const row of rows) expect(row.why, row.name).not.toBe('');
  });

  it('each of them is a dev dependency of the workspace, installed by no tarball, and quiet on Node 22.12', () => {
    expect(warned.length).toBeGreaterThan(0);
    for (const [path, entry] of warned) {
      expect(entry.dev === true || entry.devOptional === true, path).toBe(true);
      expect(warnsOn('22.12.0', entry), path).toBe(false);
    }
    // A production package of the SDK is not among them.
    expect(warned.map(([path]) => nameOf(path))).not.toContain('zod');
    expect(lock.packages['node_modules/zod']).toBeDefined();
  });
});

describe('npm ci prints no install-scripts warning', () => {
  it('allowScripts names every package of the lock file that has an install script', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path.includes('node_modules/') && entry.hasInstallScript === true)
      .map(([path]) => nameOf(path));
    // Positive control: the lock does record install scripts (better-sqlite3 compiles its addon).
    expect(withScripts).toContain('better-sqlite3');
    const allowed = root.allowScripts ?? {};
    expect(withScripts.filter((name) => !(name in allowed))).toEqual([]);
    // And the README says why for each kind.
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    for (const name of ['better-sqlite3', 'esbuild', 'tree-sitter-bash', 'ffmpeg', 'ffprobe'])
      expect(readme.slice(readme.indexOf('### Which Node')), name).toContain(name);
  });
});
