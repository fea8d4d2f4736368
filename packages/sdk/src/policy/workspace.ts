import { homedir } from 'node:os';
import { posix } from 'node:path';
import { bothReadings, isWithin, resolveLikeKernel, type PathResolution } from './realPath.js';

/**
 * Why a call that names a path cannot be allowed without asking (docs/permissions-policy.md,
 * "Edits stay in the workspace" and "Reads stay in the workspace"):
 * - `no_workspace`: the gate has no workspace root, or the root cannot be resolved;
 * - `no_path`: an edit names no file the gate knows how to read;
 * - `outside_workspace`: the path is not inside the root under both readings ({@link bothReadings}),
 *   or it cannot be placed (it starts with `~`, a symlink on the way dangles or loops, a `..`
 *   follows a missing component);
 * - `home_workspace`: the workspace root is `$HOME` or above it, so "inside the workspace" would
 *   include every start-up file and secret of the user;
 * - `hard_link`: the file has more than one hard link, so it is also somewhere the gate cannot see;
 * - `protected_path`: an edit of a path that runs as code later or changes what later commands
 *   do (`PROTECTED_PATHS`, `PROTECTED_NAMES`, git internals).
 */
export type PathConcern =
  'no_workspace' | 'no_path' | 'outside_workspace' | 'home_workspace' | 'hard_link' | 'protected_path';

/** A workspace root, resolved. */
export interface Workspace {
  /** The root as given, made absolute and normalised as text. */
  readonly written: string;
  /** The root as the kernel resolves it. */
  readonly real: string;
}

/** Both readings of a path, each inside the workspace. */
export interface PlacedPath {
  readonly kernel: PathResolution & { ok: true };
  readonly textual: PathResolution & { ok: true };
}

/**
 * The workspace root, resolved, or why nothing can be inside it: none is set, it cannot be
 * resolved, or it is at or above the user's home (`os.homedir()` or `$HOME`).
 */
export function workspaceOf(root: string | undefined): Workspace | PathConcern {
  if (root === undefined || root.length === 0) return 'no_workspace';
  const written = posix.resolve(root);
  const resolved = resolveLikeKernel(written, '/');
  if (!resolved.ok) return 'no_workspace';
  for (const home of homes()) {
    if (isWithin(home, resolved.path) || isWithin(home, written)) return 'home_workspace';
  }
  return { written, real: resolved.path };
}

/**
 * Both readings of `path` (relative paths against the root), when both land inside the workspace;
 * the root itself counts as inside only when `rootIsInside`. Otherwise `outside_workspace`.
 */
export function placeIn(
  path: string,
  workspace: Workspace,
  rootIsInside: boolean,
): PlacedPath | 'outside_workspace' {
  const [kernel, textual] = bothReadings(path, workspace.written);
  if (!kernel.ok || !textual.ok) return 'outside_workspace';
  for (const reading of [kernel, textual]) {
    if (!isWithin(reading.path, workspace.real)) return 'outside_workspace';
    if (!rootIsInside && reading.path === workspace.real) return 'outside_workspace';
  }
  return { kernel, textual };
}

/** True when a resolved path is a file (not a directory) with more than one hard link. */
export function hasOtherLinks(reading: PathResolution): boolean {
  return reading.ok && reading.stats !== undefined && !reading.stats.isDirectory() && reading.stats.nlink > 1;
}

/** The user's home directories, each as written and as resolved. */
function homes(): string[] {
  const out = new Set<string>();
  for (const home of [safeHomedir(), process.env['HOME']]) {
    if (home === undefined || !home.startsWith('/')) continue;
    out.add(posix.normalize(home).replace(/(.)\/$/, '$1'));
    const resolved = resolveLikeKernel(home, '/');
    if (resolved.ok) out.add(resolved.path);
  }
  return [...out];
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
