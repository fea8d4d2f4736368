import { lstatSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';

/**
 * Why an edit cannot be allowed without asking (docs/permissions-policy.md, "Edits stay in the
 * workspace"):
 * - `no_workspace`: the gate has no workspace root;
 * - `no_path`: the call names no file the gate knows how to read;
 * - `outside_workspace`: the file is not inside the root once `..`, `//`, `.` and symlinks are
 *   resolved (or it starts with `~`, or a symlink on the way points nowhere);
 * - `protected_path`: the file is one an edit could turn into code that runs: under `.git/`,
 *   `.happy/` or `.ssh/` at any depth, a shell start-up file, or a `.env*` file.
 */
export type EditConcern = 'no_workspace' | 'no_path' | 'outside_workspace' | 'protected_path';

/** Directories whose files are never edited without asking, at any depth (compared case-insensitively). */
export const PROTECTED_DIRECTORIES: readonly string[] = ['.git', '.happy', '.ssh'];

/** Shell start-up files: an edit there runs in every later shell. */
export const SHELL_STARTUP_FILES: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.logout',
  '.kshrc',
  '.mkshrc',
  'config.fish',
];

/**
 * Whether an edit of `filePath` may be allowed without asking, with `workspaceRoot` as the root.
 * Returns `undefined` when it may, otherwise why not. Reads the file system only to resolve
 * symlinks of the parts of the path that exist; never throws.
 */
export function editConcern(
  filePath: string | undefined,
  workspaceRoot: string | undefined,
): EditConcern | undefined {
  if (workspaceRoot === undefined || workspaceRoot.length === 0) return 'no_workspace';
  if (filePath === undefined || filePath.length === 0 || filePath.includes('\0')) return 'no_path';
  // A tool may expand `~` itself; the gate does not know whose home that is.
  if (filePath.startsWith('~')) return 'outside_workspace';
  const root = canonical(posix.resolve(workspaceRoot));
  const target = canonical(posix.resolve(workspaceRoot, filePath));
  if (root === undefined || target === undefined) return 'outside_workspace';
  const relative = posix.relative(root, target);
  if (relative === '' || relative === '..' || relative.startsWith('../') || posix.isAbsolute(relative)) {
    return 'outside_workspace';
  }
  // The path as written counts too: `.git` reached through a symlink and `.git` written out.
  const written = posix.relative(posix.resolve(workspaceRoot), posix.resolve(workspaceRoot, filePath));
  return isProtected(relative) || isProtected(written) ? 'protected_path' : undefined;
}

/** True when a path relative to the workspace is one an edit must not touch without asking. */
export function isProtected(relativePath: string): boolean {
  const segments = relativePath
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => s.toLowerCase());
  const name = segments.at(-1) ?? '';
  if (segments.some((s) => PROTECTED_DIRECTORIES.includes(s))) return true;
  if (SHELL_STARTUP_FILES.includes(name)) return true;
  return name.startsWith('.env');
}

/**
 * The path with every symlink of its existing part resolved; the part that does not exist yet is
 * appended as written. `undefined` when a symlink on the way cannot be resolved (it points
 * nowhere, or loops): the edit would land where the gate cannot see.
 */
function canonical(absolute: string): string | undefined {
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      if (existing === '/') return absolute;
      missing.unshift(posix.basename(existing));
      existing = posix.dirname(existing);
    }
  }
  try {
    return posix.join(realpathSync.native(existing), ...missing);
  } catch {
    return undefined;
  }
}
