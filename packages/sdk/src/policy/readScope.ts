import { pathReadings } from './pathArgument.js';
import { MAX_PATH_LENGTH } from './realPath.js';
import { hasOtherLinks, placeIn, workspaceOf, type PathConcern } from './workspace.js';

/**
 * The arguments that name what a known read or search tool reads. A call of one of these tools
 * that names none reads its working directory, taken to be the workspace root.
 */
export const READ_PATH_ARGS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Read: ['file_path', 'path'],
  NotebookRead: ['notebook_path'],
  LS: ['path'],
  Glob: ['path'],
  Grep: ['path'],
});

/** Most path-like arguments of an unknown tool judged; a call with more asks. */
const MAX_JUDGED_PATHS = 16;

/**
 * Whether a read-, search- or think-kind call may be allowed without asking
 * (docs/permissions-policy.md, "Reads stay in the workspace"): every path it names must be inside
 * the workspace root (the root itself included) under both readings of the path, and name a file
 * with one hard link; the root must be below `$HOME`. Known tools name their paths in
 * {@link READ_PATH_ARGS} (Glob's `pattern` counts too, from its fixed part); an unknown tool's
 * string arguments that look like paths (`/…`, `~…`, `file://…`, anything with a `/`), nested
 * ones included, are judged as paths. Returns `undefined` when it may; never throws.
 */
export function readConcern(
  toolName: string,
  args: unknown,
  workspaceRoot: string | undefined,
  knownTool: boolean,
): PathConcern | undefined {
  const named = namedPaths(toolName, args, knownTool);
  if (named === 'unreadable') return 'no_path';
  // A known tool with no path reads its working directory; a tool with no path names nothing.
  if (named.length === 0 && !Object.hasOwn(READ_PATH_ARGS, toolName)) return undefined;
  const workspace = workspaceOf(workspaceRoot);
  if (typeof workspace === 'string') return workspace;
  for (const path of named) {
    const placed = placeIn(path, workspace, true);
    if (typeof placed === 'string') return placed;
    if (hasOtherLinks(placed.kernel) || hasOtherLinks(placed.textual)) return 'hard_link';
  }
  return undefined;
}

/**
 * The paths a call names (the known tools' {@link READ_PATH_ARGS}, Glob's pattern from its fixed
 * part; an unknown tool's path-like strings), or `unreadable` when they cannot be told.
 */
export function namedPaths(toolName: string, args: unknown, knownTool: boolean): string[] | 'unreadable' {
  const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  if (Object.hasOwn(READ_PATH_ARGS, toolName)) {
    const out: string[] = [];
    for (const key of READ_PATH_ARGS[toolName]!) {
      const value = record[key];
      if (value === undefined || value === '') continue;
      if (typeof value !== 'string') return 'unreadable';
      const readings = pathReadings(value);
      if (readings === undefined) return 'unreadable';
      out.push(...readings);
    }
    if (toolName === 'Glob' && record['pattern'] !== undefined) {
      const pattern = record['pattern'];
      if (typeof pattern !== 'string') return 'unreadable';
      const readings = pathReadings(pattern);
      if (readings === undefined) return 'unreadable';
      const dirs = [...out];
      for (const reading of readings) {
        const base = globBase(reading);
        if (base === undefined) return 'unreadable';
        if (base.startsWith('/') || dirs.length === 0) out.push(base);
        else out.push(...dirs.map((dir) => `${dir}/${base}`));
      }
    }
    return out;
  }
  if (knownTool) return [];
  const out: string[] = [];
  for (const value of stringsIn(record)) {
    if (value === undefined) return 'unreadable';
    if (value.length > MAX_PATH_LENGTH) continue;
    const path = pathLike(value);
    if (path === 'unreadable') return 'unreadable';
    if (path !== undefined) out.push(...path);
    if (out.length > MAX_JUDGED_PATHS) return 'unreadable';
  }
  return out;
}

/** Deepest nesting of an unknown tool's arguments looked into (`{locations: [{path}]}` is 3). */
const MAX_DEPTH = 4;
/** Most values of an unknown tool's arguments looked at; past it, `undefined` ends the walk. */
const MAX_VALUES = 1_000;

/**
 * The strings in `args`, nested objects and arrays included down to {@link MAX_DEPTH}; an
 * `undefined` item says the walk stopped early (too deep, too many values), so the caller asks.
 */
function* stringsIn(args: Record<string, unknown>): Generator<string | undefined> {
  const stack: [unknown, number][] = [[args, 0]];
  let seen = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++seen > MAX_VALUES) {
      yield undefined;
      return;
    }
    if (typeof value === 'string') yield value;
    else if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_DEPTH) {
        yield undefined;
        return;
      }
      for (const inner of Array.isArray(value) ? value : Object.values(value)) stack.push([inner, depth + 1]);
    }
  }
}

/** A string argument of an unknown tool read as a path, if it looks like one: every reading of it. */
function pathLike(value: string): readonly string[] | 'unreadable' | undefined {
  if (/^file:/i.test(value)) return pathReadings(value)?.slice(1) ?? 'unreadable';
  if (value.startsWith('~') || value === '.' || value === '..' || value.includes('/')) return [value];
  return undefined;
}

const GLOB_MAGIC = /[*?[\]{}()!@+]/;

/**
 * The fixed directory a glob pattern starts from (`/etc/*` → `/etc`, `src/**` → `src`, `*.ts` →
 * `.`); `undefined` when a `..` could come after the first wildcard, which a fixed part cannot tell.
 */
function globBase(pattern: string): string | undefined {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  for (const part of parts) {
    if (GLOB_MAGIC.test(part)) break;
    fixed.push(part);
  }
  if (parts.slice(fixed.length).some((part) => part.includes('..'))) return undefined;
  if (fixed.length === parts.length) return pattern.length === 0 ? '.' : pattern;
  const base = fixed.join('/');
  return base === '' ? (pattern.startsWith('/') ? '/' : '.') : base;
}
