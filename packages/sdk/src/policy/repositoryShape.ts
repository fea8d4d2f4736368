import { readdirSync } from 'node:fs';
import { comparableName, GIT_DIRECTORY_NAMES, REPOSITORY_MARKERS } from './protectedPaths.js';

/**
 * True when writing the path whose resolved components are `segments` (absolute, in order) would
 * write git internals into a directory that is, or is becoming, a repository
 * (docs/permissions-policy.md, "Protected paths"): a component named like one of
 * {@link GIT_DIRECTORY_NAMES} (`config`, `objects`, `refs`, `hooks`, …) inside a directory named
 * `.git`, or inside a directory that already holds one of the {@link REPOSITORY_MARKERS} other than
 * that component itself. A bare repository needs only `HEAD`, `objects/` and `refs/` (and the next
 * `git status` there obeys its `config`, `core.fsmonitor` included), so each such write is caught
 * before the last piece lands; `HEAD` itself is protected everywhere (`PROTECTED_NAMES`).
 *
 * Reads the directories on the way (one `readdir` per such component); a directory that exists
 * but cannot be listed counts as a repository. Never throws.
 */
export function writesGitInternals(segments: readonly string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const name = comparableName(segments[i]!);
    if (!GIT_DIRECTORY_NAMES.includes(name)) continue;
    if (i > 0 && comparableName(segments[i - 1]!) === '.git') return true;
    const held = entriesOf(`/${segments.slice(0, i).join('/')}`);
    if (held === 'unreadable') return true;
    if (held.some((entry) => entry !== name && REPOSITORY_MARKERS.includes(entry))) return true;
  }
  return false;
}

/** The comparable names a directory holds; none when it does not exist. */
function entriesOf(directory: string): readonly string[] | 'unreadable' {
  try {
    return readdirSync(directory).map(comparableName);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : 'unreadable';
  }
}
