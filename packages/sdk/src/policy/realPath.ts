import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { posix } from 'node:path';

/**
 * Where a path lands, judged the way the kernel walks it (docs/permissions-policy.md, "How a path
 * is judged"): from `/`, component by component, each symlink followed as it is met (its target
 * walked again from the link's directory, or from `/`), and `..` applied to the directory reached
 * so far, never to the text. `src/link/../../x` with `src/link` → `/elsewhere/deep` lands in
 * `/elsewhere/x`, not in the workspace.
 */
export type PathResolution =
  | {
      readonly ok: true;
      /** Absolute, `/`-separated, without symlinks, `.` or `..`. */
      readonly path: string;
      /** `lstat` of what the path names, when it exists (it is never a symlink). */
      readonly stats?: Stats;
    }
  | { readonly ok: false; readonly reason: ResolveFailure };

/**
 * Why a path cannot be placed, and so is never judged inside anything:
 * - `invalid`: empty, too long, holds NUL, or starts with `~` (the tool may expand it; the gate
 *   does not know whose home that is);
 * - `loop`: more than {@link MAX_SYMLINKS} symlinks on the way;
 * - `dangling`: a symlink points at something that does not exist (a write would create it
 *   wherever the link says);
 * - `dotdot_after_missing`: a `..` after a component that does not exist (the kernel fails,
 *   a tool that normalises text first does not);
 * - `not_a_directory`: a component past a file;
 * - `unreadable`: a component could not be examined (permissions, I/O);
 * - `too_many_steps`: more than {@link MAX_LOOKUPS} components to examine, so that judging one
 *   path never blocks the process for long.
 */
export type ResolveFailure =
  | 'invalid'
  | 'loop'
  | 'dangling'
  | 'dotdot_after_missing'
  | 'not_a_directory'
  | 'unreadable'
  | 'too_many_steps';

/** Linux's bound on the symlinks one lookup follows (`ELOOP` past it). */
export const MAX_SYMLINKS = 40;

/** Longest path judged (Linux's `PATH_MAX`); a longer one is never placed. */
export const MAX_PATH_LENGTH = 4096;

/** Most components examined (`lstat`) for one path, symlink targets included. */
export const MAX_LOOKUPS = 256;

interface Pending {
  readonly name: string;
  /** The component came from a symlink's target: it must exist, or the link dangles. */
  readonly fromLink: boolean;
}

/**
 * Resolves `path` as the kernel would, a relative path against `base` (an absolute path, itself
 * walked the same way). Reads the file system (`lstat`, `readlink`); never throws.
 */
export function resolveLikeKernel(path: string, base: string): PathResolution {
  if (!placeable(path) || !placeable(base) || !base.startsWith('/')) return fail('invalid');
  const start = path.startsWith('/') ? path : `${base}/${path}`;
  const pending: Pending[] = components(start)
    .reverse()
    .map((name) => ({ name, fromLink: false }));
  const resolved: string[] = [];
  let links = 0;
  let lookups = 0;
  let missing = false;
  let stats: Stats | undefined;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { name, fromLink } = next;
    if (name === '.') continue;
    if (name === '..') {
      if (missing) return fail('dotdot_after_missing');
      resolved.pop();
      stats = undefined;
      continue;
    }
    if (missing) {
      if (fromLink) return fail('dangling');
      resolved.push(name);
      continue;
    }
    if (stats !== undefined && !stats.isDirectory()) return fail('not_a_directory');
    if (++lookups > MAX_LOOKUPS) return fail('too_many_steps');
    const here = `/${[...resolved, name].join('/')}`;
    let found: Stats;
    try {
      found = lstatSync(here);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') return fail('not_a_directory');
      if (code !== 'ENOENT') return fail('unreadable');
      if (fromLink) return fail('dangling');
      missing = true;
      stats = undefined;
      resolved.push(name);
      continue;
    }
    if (found.isSymbolicLink()) {
      if (++links > MAX_SYMLINKS) return fail('loop');
      let target: string;
      try {
        target = readlinkSync(here);
      } catch {
        return fail('unreadable');
      }
      if (target.length === 0 || target.length > MAX_PATH_LENGTH || target.includes('\0')) {
        return fail('dangling');
      }
      if (target.startsWith('/')) resolved.length = 0;
      // The target is walked from the link's own directory; with no stats of a directory yet
      // known, `stats` says nothing of it.
      stats = undefined;
      for (const part of components(target).reverse()) pending.push({ name: part, fromLink: true });
      continue;
    }
    resolved.push(name);
    stats = found;
  }
  const out = `/${resolved.join('/')}`;
  return stats === undefined ? { ok: true, path: out } : { ok: true, path: out, stats };
}

/**
 * The two places a path may land: where the kernel takes it ({@link resolveLikeKernel}), and where
 * a tool that first normalises the text (`path.resolve`, which drops `x/..` before any symlink is
 * seen) takes it. A path is judged by both, and allowed only when both allow it.
 */
export function bothReadings(path: string, base: string): readonly [PathResolution, PathResolution] {
  const kernel = resolveLikeKernel(path, base);
  if (!placeable(path) || !placeable(base) || !base.startsWith('/')) return [kernel, kernel];
  return [kernel, resolveLikeKernel(posix.resolve(base, path), '/')];
}

/** The components of an absolute path (`/a/b` → `a`, `b`), for matching by segment. */
export function segmentsOf(absolute: string): string[] {
  return components(absolute);
}

/** True when `path` is `root` itself or below it (both resolved, absolute). */
export function isWithin(path: string, root: string): boolean {
  if (root === '/') return true;
  return path === root || path.startsWith(`${root}/`);
}

function placeable(path: string): boolean {
  return path.length > 0 && path.length <= MAX_PATH_LENGTH && !path.includes('\0') && !path.startsWith('~');
}

function components(path: string): string[] {
  return path.split('/').filter((part) => part.length > 0);
}

function fail(reason: ResolveFailure): PathResolution {
  return { ok: false, reason };
}
