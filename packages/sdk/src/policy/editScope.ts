import { posix } from 'node:path';
import { protectedEntry, protectedName } from './protectedPaths.js';
import { bothReadings, segmentsOf } from './realPath.js';
import { writesGitInternals } from './repositoryShape.js';
import { hasOtherLinks, placeIn, workspaceOf, type PathConcern } from './workspace.js';

/**
 * Whether an edit of `filePath` may be allowed without asking, with `workspaceRoot` as the root
 * (docs/permissions-policy.md, "Edits stay in the workspace"). Returns `undefined` when it may,
 * otherwise why not ({@link PathConcern}): the file must be inside the workspace under both
 * readings of the path, the root must be below `$HOME`, the file must have one hard link, and no
 * reading may be a protected path. Reads the file system; never throws.
 */
export function editConcern(
  filePath: string | undefined,
  workspaceRoot: string | undefined,
): PathConcern | undefined {
  const workspace = workspaceOf(workspaceRoot);
  if (typeof workspace === 'string') return workspace;
  if (filePath === undefined || filePath.length === 0 || filePath.includes('\0')) return 'no_path';
  const placed = placeIn(filePath, workspace, false);
  if (typeof placed === 'string') return placed;
  const readings: [string, string][] = [
    [posix.resolve(workspace.written, filePath), workspace.written],
    [placed.kernel.path, workspace.real],
    [placed.textual.path, workspace.real],
  ];
  if (readings.some(([path, root]) => isProtected(path, root))) return 'protected_path';
  if (hasOtherLinks(placed.kernel) || hasOtherLinks(placed.textual)) return 'hard_link';
  return undefined;
}

/**
 * True when an edit of `absolutePath` would write a protected path: an entry of `PROTECTED_PATHS`
 * at any depth of the whole path, a `PROTECTED_NAMES` name below `root`, or git internals
 * ({@link writesGitInternals}).
 */
export function isProtected(absolutePath: string, root: string): boolean {
  const segments = segmentsOf(absolutePath);
  if (protectedEntry(segments) !== undefined) return true;
  const below =
    root === '/'
      ? absolutePath
      : absolutePath.startsWith(`${root}/`)
        ? absolutePath.slice(root.length)
        : absolutePath;
  if (protectedName(segmentsOf(below)) !== undefined) return true;
  return writesGitInternals(segments);
}

/**
 * Whether an edit of `filePath` writes a protected path ({@link isProtected}) by any reading: the
 * text against `workspaceRoot` (or `/`), and where the kernel and a normalising tool take it. A
 * path that cannot be read (empty, a NUL, a dangling link, a loop of links) counts as one. Reads the file system; never throws.
 */
export function editPlantsCode(filePath: string, workspaceRoot: string | undefined): boolean {
  if (filePath.length === 0 || filePath.includes('\0')) return true;
  const root =
    workspaceRoot !== undefined && workspaceRoot.startsWith('/') ? posix.normalize(workspaceRoot) : '/';
  const readings = [posix.resolve(root, filePath)];
  for (const reading of bothReadings(filePath, root)) {
    // A path the kernel's reading cannot place (a dangling link, a loop) may land anywhere.
    if (!reading.ok) return true;
    readings.push(reading.path);
  }
  return readings.some((path) => isProtected(path, root));
}
