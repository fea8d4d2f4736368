import { posix } from 'node:path';
import {
  bothReadings,
  isWithin,
  MAX_PATH_LENGTH,
  resolveLikeKernel,
  type PathResolution,
} from './realPath.js';

/**
 * The path-glob subset used by file-tool rules (docs/permissions-requirements.md R5.3): `**` matches any number of
 * segments (zero included), `*` any characters within one segment, `?` one character within one
 * segment; everything else is literal (no character classes or braces). Dot files are matched
 * like any other file, as in gitignore. A pattern without `/` matches the file name at any depth;
 * a pattern starting with `/` is absolute; any other pattern is relative to the workspace root.
 * The policy matches with {@link matchGlob}, in time linear in the path for a given pattern; this
 * regular expression says the same.
 */
export function globToRegExp(pattern: string): RegExp {
  const p = anchored(pattern);
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      const slashAfter = p[i + 2] === '/';
      out += slashAfter ? '(?:[^/]*/)*' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') {
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else {
      out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

/** The pattern as it is matched: `**\/` in front of a bare name, no leading `./`. */
function anchored(pattern: string): string {
  let p = pattern;
  if (!p.includes('/')) p = `**/${p}`;
  if (p.startsWith('./')) p = p.slice(2);
  return p;
}

/**
 * True when `path` matches the glob `pattern` ({@link globToRegExp}'s language), `ignoreCase` for
 * deny rules on file systems that ignore case. A set of reachable positions is carried through the
 * pattern, so the time is the pattern's length times the path's, whatever the stars.
 */
export function matchGlob(pattern: string, path: string, ignoreCase = false): boolean {
  const p = ignoreCase ? anchored(pattern).toLowerCase() : anchored(pattern);
  const s = ignoreCase ? path.toLowerCase() : path;
  const n = s.length;
  let reach = new Uint8Array(n + 1);
  let next = new Uint8Array(n + 1);
  reach[0] = 1;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    next.fill(0);
    if (c === '*' && p[i + 1] === '*' && p[i + 2] === '/') {
      // Zero or more whole segments: from a reachable position, any position just after a `/`.
      let open = false;
      for (let j = 0; j <= n; j++) {
        if (reach[j]) {
          next[j] = 1;
          open = true;
        }
        if (open && j < n && s[j] === '/') next[j + 1] = 1;
      }
      i += 2;
    } else if (c === '*' && p[i + 1] === '*') {
      let open = false;
      for (let j = 0; j <= n; j++) {
        if (reach[j]) open = true;
        if (open) next[j] = 1;
      }
      i += 1;
    } else if (c === '*') {
      let open = false;
      for (let j = 0; j <= n; j++) {
        if (reach[j]) open = true;
        if (open) next[j] = 1;
        if (j < n && s[j] === '/') open = false;
      }
    } else {
      for (let j = 0; j < n; j++) {
        if (reach[j] && (c === '?' ? s[j] !== '/' : s[j] === c)) next[j + 1] = 1;
      }
    }
    [reach, next] = [next, reach];
  }
  return reach[n] === 1;
}

/**
 * The path a pattern is compared with, as written: relative to `workspaceRoot` (posix, normalised
 * as text) for relative patterns, absolute for absolute ones. `undefined` when the path cannot be
 * placed safely: it escapes the workspace with `..`, it is relative and no root is known for an
 * absolute pattern, or it is longer than a path can be. Callers treat `undefined` as "cannot
 * tell", never as a match for an allow.
 */
export function pathForPattern(
  filePath: string,
  pattern: string,
  workspaceRoot: string | undefined,
): string | undefined {
  if (filePath.length === 0 || filePath.length > MAX_PATH_LENGTH || filePath.includes('\0')) return undefined;
  const absolutePattern = pattern.startsWith('/');
  const absolutePath = filePath.startsWith('/');
  if (absolutePattern) {
    if (absolutePath) return posix.normalize(filePath);
    return workspaceRoot === undefined ? undefined : posix.join(workspaceRoot, filePath);
  }
  let relative: string;
  if (absolutePath) {
    if (workspaceRoot === undefined) return undefined;
    relative = posix.relative(posix.normalize(workspaceRoot), posix.normalize(filePath));
  } else {
    relative = posix.normalize(filePath);
  }
  return relativeOrUndefined(relative);
}

/** True when `filePath` matches `pattern` as written; `undefined` when that cannot be decided safely. */
export function matchPathPattern(
  pattern: string,
  filePath: string,
  workspaceRoot: string | undefined,
): boolean | undefined {
  const placed = pathForPattern(filePath, pattern, workspaceRoot);
  if (placed === undefined) return undefined;
  return matchGlob(pattern, placed);
}

/**
 * How a path rule's pattern relates to the file a call names, judged on every reading of the path
 * (docs/permissions-policy.md, "How a path is judged"): as written, where the kernel takes it and
 * where a tool that normalises the text first takes it, both with symlinks resolved. For a deny or
 * ask rule (`deny`) one matching reading is a match, compared without case; for an allow rule
 * every reading must match. A reading that cannot be placed, or a file with more than one hard
 * link (it is also somewhere else), makes it `undefined` unless a deny rule already matched.
 */
export function matchPathReadings(
  pattern: string,
  filePath: string,
  workspaceRoot: string | undefined,
  purpose: 'deny' | 'allow',
): boolean | undefined {
  const deny = purpose === 'deny';
  const results: (boolean | undefined)[] = [];
  const written = pathForPattern(filePath, pattern, workspaceRoot);
  results.push(written === undefined ? undefined : matchGlob(pattern, written, deny));
  for (const placed of resolvedForPattern(filePath, pattern, workspaceRoot)) {
    results.push(placed === undefined ? undefined : matchGlob(pattern, placed, deny));
  }
  if (deny && results.includes(true)) return true;
  if (results.includes(undefined)) return undefined;
  return deny ? false : results.every((r) => r === true);
}

/** True when every reading of `path` is the workspace root itself (`.`, the root's absolute path). */
export function namesWorkspaceRoot(path: string, workspaceRoot: string | undefined): boolean {
  if (workspaceRoot === undefined) return false;
  const base = posix.resolve(workspaceRoot);
  const root = resolveLikeKernel(base, '/');
  if (!root.ok) return false;
  return bothReadings(path, base).every((reading) => reading.ok && reading.path === root.path);
}

/** The two resolved readings of `filePath`, each placed for `pattern` (or `undefined`). */
function resolvedForPattern(
  filePath: string,
  pattern: string,
  workspaceRoot: string | undefined,
): (string | undefined)[] {
  const base = workspaceRoot === undefined ? undefined : posix.resolve(workspaceRoot);
  if (base === undefined && !filePath.startsWith('/')) return [undefined];
  const readings = bothReadings(filePath, base ?? '/');
  const root = base === undefined ? undefined : resolveLikeKernel(base, '/');
  return readings.map((reading) => placeReading(reading, pattern, root));
}

function placeReading(
  reading: PathResolution,
  pattern: string,
  root: PathResolution | undefined,
): string | undefined {
  if (!reading.ok) return undefined;
  if (reading.stats !== undefined && !reading.stats.isDirectory() && reading.stats.nlink > 1)
    return undefined;
  if (pattern.startsWith('/')) return reading.path;
  if (root === undefined || !root.ok || !isWithin(reading.path, root.path)) return undefined;
  return relativeOrUndefined(posix.relative(root.path, reading.path));
}

function relativeOrUndefined(relative: string): string | undefined {
  if (relative === '' || relative === '.') return undefined;
  if (relative === '..' || relative.startsWith('../') || relative.startsWith('/')) return undefined;
  return relative.startsWith('./') ? relative.slice(2) : relative;
}
