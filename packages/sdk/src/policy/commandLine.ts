import { posix } from 'node:path';

/**
 * The command line an execute-kind tool carries, for deny and ask rules about `Bash`
 * (docs/permissions-policy.md, "Deny rules see the real command"): `command` or `cmd` as a
 * string, or as an argv array (`["bash", "-lc", "rm -rf x"]`), which becomes a line whose words
 * are exactly the array's elements. `unknown` when such a key holds something else, or when two
 * of them hold different lines (the tool may run either: `{command: "ls", cmd: "rm -rf x"}`), so
 * that a deny rule is never silently skipped; `undefined` when the call carries no command line.
 */
export function commandLineOf(args: unknown): string | 'unknown' | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  let line: string | undefined;
  for (const key of ['command', 'cmd', 'argv']) {
    if (!Object.hasOwn(args, key)) continue;
    const value = (args as Record<string, unknown>)[key];
    let one: string;
    if (typeof value === 'string' && value.length > 0) one = value;
    else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string'))
      one = value.map(singleQuoted).join(' ');
    else return 'unknown';
    if (line !== undefined && line !== one) return 'unknown';
    line = one;
  }
  return line;
}

/** `text` as one bash word, read back exactly: in single quotes, each `'` written as `'\''`. */
function singleQuoted(text: string): string {
  return `'${text.split("'").join("'\\''")}'`;
}

/**
 * Where a Bash call runs, from its `args.cwd`, judged against the workspace root:
 * - `rules` — no cwd, or the workspace root itself: the directory `Bash(…)` rules are written for;
 * - `inside` — another directory inside the workspace root: a rule naming a relative path
 *   (`Bash(./scripts/test.sh)`) does not cover it, since the path names another file there;
 * - a concern — the cwd is not a string, holds `..` (judged before symlinks are followed, it
 *   could land anywhere) or is not absolute without a root to resolve it against, or is outside
 *   the workspace root: such a call is never allowed by a rule or a mode short of
 *   `bypassPermissions`.
 */
export type CwdJudgement =
  | { readonly kind: 'rules' }
  | { readonly kind: 'inside' }
  | { readonly kind: 'concern'; readonly reason: CwdConcern };

/** Why a call's `cwd` stops it from being allowed by a rule. */
export type CwdConcern = 'cwd_not_a_string' | 'cwd_not_judged' | 'cwd_outside_workspace';

/** Longest `cwd` judged (Linux's PATH_MAX); a longer one is a concern. */
const MAX_CWD_LENGTH = 4096;

/** How a Bash call's `args.cwd` relates to the workspace root ({@link CwdJudgement}). */
export function judgeCwd(args: unknown, workspaceRoot: string | undefined): CwdJudgement {
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, 'cwd')) return { kind: 'rules' };
  const cwd = (args as Record<string, unknown>).cwd;
  if (cwd === undefined) return { kind: 'rules' };
  if (typeof cwd !== 'string' || cwd.length === 0 || cwd.length > MAX_CWD_LENGTH || cwd.includes('\0'))
    return { kind: 'concern', reason: 'cwd_not_a_string' };
  if (cwd.split('/').includes('..')) return { kind: 'concern', reason: 'cwd_not_judged' };
  if (workspaceRoot === undefined) {
    // Without a root, a rule's directory is wherever the agent runs when it names none.
    return { kind: 'inside' };
  }
  const root = posix.normalize(workspaceRoot).replace(/\/+$/, '') || '/';
  const dir = posix.normalize(posix.isAbsolute(cwd) ? cwd : posix.join(root, cwd));
  const trimmed = dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
  if (trimmed === root) return { kind: 'rules' };
  const within = root === '/' ? trimmed.startsWith('/') : trimmed.startsWith(`${root}/`);
  return within ? { kind: 'inside' } : { kind: 'concern', reason: 'cwd_outside_workspace' };
}

/** True when a word names a path relative to the directory the command runs in (`./x.sh`, `bin/x`). */
export function isRelativePath(value: string): boolean {
  return value.includes('/') && !value.startsWith('/');
}

/** Builtins that change the directory later commands of the same line run in. */
export const CHANGES_DIRECTORY: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd']);

/** Most strings {@link stringsCarriedBy} reads from one call's arguments. */
export const MAX_CARRIED_STRINGS = 64;
/** How deep {@link stringsCarriedBy} looks into nested objects and arrays. */
const MAX_CARRIED_DEPTH = 4;

/**
 * The strings an execute-kind tool carries under keys other than `command`/`cmd`/`argv`
 * (`{script: "rm -rf x"}`, `{steps: [{run: "…"}]}`), each read as a command line that the tool
 * may run, and each array of strings also as an argv line: what deny and ask rules about Bash are
 * matched against (docs/permissions-policy.md, "Deny rules see the real command"). Up to
 * {@link MAX_CARRIED_STRINGS} strings, {@link MAX_CARRIED_DEPTH} levels deep, `totalChars` in all;
 * `too_many` beyond, so that a rule is never skipped by padding.
 */
export function stringsCarriedBy(args: unknown, totalChars: number): readonly string[] | 'too_many' {
  const lines: string[] = [];
  let chars = 0;
  const add = (line: string): boolean => {
    chars += line.length;
    lines.push(line);
    return lines.length <= MAX_CARRIED_STRINGS && chars <= totalChars;
  };
  const walk = (value: unknown, depth: number): boolean => {
    if (typeof value === 'string') return value.length === 0 || add(value);
    if (typeof value !== 'object' || value === null) return true;
    if (depth >= MAX_CARRIED_DEPTH) return false;
    const values: unknown[] = Array.isArray(value) ? value : Object.values(value);
    if (values.length > MAX_CARRIED_STRINGS) return false;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) {
      if (!add(value.map(singleQuoted).join(' '))) return false;
    }
    return values.every((v) => walk(v, depth + 1));
  };
  return walk(args, 0) ? lines : 'too_many';
}
