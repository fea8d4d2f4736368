import { posix } from 'node:path';

/**
 * The path-glob subset used by file-tool rules (docs/permissions-requirements.md R5.3): `**` matches any number of
 * segments (zero included), `*` any characters within one segment, `?` one character within one
 * segment; everything else is literal (no character classes or braces). Dot files are matched
 * like any other file, as in gitignore. A pattern without `/` matches the file name at any depth;
 * a pattern starting with `/` is absolute; any other pattern is relative to the workspace root.
 */
export function globToRegExp(pattern: string): RegExp {
  let p = pattern;
  if (!p.includes('/')) p = `**/${p}`;
  if (p.startsWith('./')) p = p.slice(2);
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

/**
 * The path a pattern is compared with: relative to `workspaceRoot` (posix, normalised) for
 * relative patterns, absolute for absolute ones. `undefined` when the path cannot be placed
 * safely: it escapes the workspace with `..`, or it is relative and no root is known for an
 * absolute pattern. Callers treat `undefined` as "cannot tell", never as a match for an allow.
 */
export function pathForPattern(
  filePath: string,
  pattern: string,
  workspaceRoot: string | undefined,
): string | undefined {
  if (filePath.length === 0 || filePath.includes('\0')) return undefined;
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
  if (relative === '' || relative === '.') return undefined;
  if (relative === '..' || relative.startsWith('../') || relative.startsWith('/')) return undefined;
  return relative.startsWith('./') ? relative.slice(2) : relative;
}

/** True when `filePath` matches `pattern`; `undefined` when that cannot be decided safely. */
export function matchPathPattern(
  pattern: string,
  filePath: string,
  workspaceRoot: string | undefined,
): boolean | undefined {
  const placed = pathForPattern(filePath, pattern, workspaceRoot);
  if (placed === undefined) return undefined;
  return globToRegExp(pattern).test(placed);
}
