import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GIT_DIRECTORY_NAMES,
  PROTECTED_PATHS,
  SECRET_PATHS,
  protectedEntry,
  type ProtectedPath,
} from '../policy/protectedPaths.js';
import type { HomeRules } from './hostSecrets.js';
import type { RuntimeConfig } from './runtime.js';

/** What a sandboxed command may write and read (docs/sandbox.md, "The defaults"). */
export interface Confinement {
  /** Absolute paths the command may write below; nothing else is writable. */
  readonly allowWrite: readonly string[];
  /** Absolute paths inside {@link allowWrite} that stay read-only. */
  readonly denyWrite: readonly string[];
  /** Absolute paths the command may not read. */
  readonly denyRead: readonly string[];
  /** Denied paths that do not exist: the runtime holds each with a placeholder while the sandbox runs. */
  readonly missing?: readonly string[];
  /** The directories the scan looked into: what the warm sandbox's watch keeps an eye on. */
  readonly directories?: readonly string[];
}

/** The inputs of a confinement, already absolute and resolved. */
export interface ConfinementInputs {
  readonly workspaceRoot: string;
  readonly homeDir: string;
  readonly allowWrite: readonly string[];
  readonly denyWrite: readonly string[];
  readonly denyRead: readonly string[];
  /**
   * The home directories' entries to hide, found anew at each start of a warm sandbox (see
   * `homeReadRules`).
   */
  readonly hideHome?: () => HomeRules;
  /** Entries the scan of the workspace looks at before it stops and keeps the rest read-only. */
  readonly scanLimit: number;
}

/**
 * Protected names that do harm only in a home directory (shell start-up files, the user's git,
 * curl and package-index configuration, credentials): at another root they are denied where they
 * exist, but no placeholder holds them while they do not.
 */
const HOME_ONLY = new Set([
  '.gitconfig',
  '.config/git',
  '.netrc',
  '.curlrc',
  '.wgetrc',
  '.pypirc',
  '.config/pip',
  '.happy',
  '.happy-session',
]);

function homeOnly(p: ProtectedPath): boolean {
  return (p.group === 'shell' && p.name !== '.envrc') || p.group === 'secrets' || HOME_ONLY.has(p.name);
}

/** Directories the scan does not enter: package trees, whose own repositories no command obeys. */
export const NOT_SCANNED: ReadonlySet<string> = new Set(['node_modules']);

/**
 * The confinement known without looking at the disk: write only inside the workspace root (and
 * the host's extra roots), every protected name at those roots denied whether it exists or not
 * (the runtime holds a missing one with an empty placeholder while the sandbox runs), and the
 * user's secrets under the home directory unreadable.
 */
export function baseConfinement(inputs: ConfinementInputs): Confinement {
  const roots = [inputs.workspaceRoot, ...inputs.allowWrite];
  const denyWrite = roots.flatMap((root) => [
    ...PROTECTED_PATHS.filter((p) => root === inputs.homeDir || !homeOnly(p)).map((p) => join(root, p.name)),
    join(root, 'HEAD'),
  ]);
  return {
    allowWrite: unique(roots),
    denyWrite: unique([...denyWrite, ...inputs.denyWrite]),
    denyRead: unique([...SECRET_PATHS.map((p) => join(inputs.homeDir, p.name)), ...inputs.denyRead]),
  };
}

/**
 * The confinement of a warm sandbox: {@link baseConfinement} plus what the workspace holds when the
 * sandbox starts (a watch keeps it current, see `workspaceWatch.ts`): every protected path at any depth (`sub/.git`, `packages/x/.vscode`), every
 * directory holding a `HEAD` (a repository by git's reading: its `config`, `hooks`, `objects`, …
 * stay read-only), and every secret (`.env*`, `.aws/`, …) unreadable. Past `scanLimit` entries
 * the directories not yet looked into are kept read-only whole, so a huge tree fails closed.
 */
export async function commandConfinement(
  inputs: ConfinementInputs,
  /** Called with each directory before it is read (the watch adds it there). */
  onDirectory: (dir: string) => void = () => undefined,
): Promise<Confinement> {
  const base = baseConfinement(inputs);
  const denyWrite = [...base.denyWrite];
  const denyRead = [...base.denyRead];
  const directories: string[] = [];
  const queue: { dir: string; segments: readonly string[] }[] = [{ dir: inputs.workspaceRoot, segments: [] }];
  let seen = 0;
  while (queue.length > 0) {
    const { dir, segments } = queue.shift()!;
    if (seen >= inputs.scanLimit) {
      denyWrite.push(dir);
      continue;
    }
    let entries;
    try {
      onDirectory(dir);
      entries = await opendir(dir);
    } catch {
      // Unreadable to the host: the command cannot write what it cannot list either way, but keep
      // it read-only rather than guess.
      if (segments.length > 0) denyWrite.push(dir);
      continue;
    }
    directories.push(dir);
    for await (const entry of entries) {
      seen++;
      const path = join(dir, entry.name);
      const here = [...segments, entry.name];
      const secret = isSecret(here);
      if (secret) denyRead.push(path);
      const entryProtected = protectedEntry(here);
      if (entryProtected) {
        denyWrite.push(path);
        if (entryProtected.scope === 'tree') continue;
      }
      if (entry.name.toLowerCase() === 'head') {
        for (const name of GIT_DIRECTORY_NAMES) denyWrite.push(join(dir, name));
        denyWrite.push(path);
      }
      if (entry.isDirectory() && !secret && !NOT_SCANNED.has(entry.name))
        queue.push({ dir: path, segments: here });
    }
  }
  const missing: string[] = [];
  for (const path of base.denyWrite) {
    if (
      !(await lstat(path).then(
        () => true,
        () => false,
      ))
    )
      missing.push(path);
  }
  return {
    allowWrite: base.allowWrite,
    denyWrite: unique(denyWrite),
    denyRead: unique(denyRead),
    missing,
    directories,
  };
}

/** `.env`, `.env.local`, … and the secret trees of {@link SECRET_PATHS}, at any depth. */
export function isSecret(segments: readonly string[]): boolean {
  const name = segments[segments.length - 1]!.toLowerCase();
  if (name.startsWith('.env')) return true;
  const entry = protectedEntry(segments);
  return entry !== undefined && SECRET_PATHS.includes(entry);
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** A confinement as the runtime's `filesystem` configuration takes it. */
export function listsOf(c: Confinement): RuntimeConfig['filesystem'] {
  return { allowWrite: [...c.allowWrite], denyWrite: [...c.denyWrite], denyRead: [...c.denyRead] };
}
