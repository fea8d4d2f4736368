import { editConcern, editPlantsCode } from './editScope.js';
import { pathReadings } from './pathArgument.js';
import { firstStringArg } from './ruleMatch.js';
import { readConcern } from './readScope.js';
import { PATH_RULE_TOOLS } from './rules.js';
import { EDIT_KINDS, KNOWN_TOOL_KINDS, type ToolKind } from './toolKinds.js';
import type { PathConcern } from './workspace.js';

/** The kinds whose calls are confined to reading inside the workspace. */
const READ_KINDS: readonly ToolKind[] = ['read', 'search', 'think'];

/**
 * Why a call that a mode cell or an allow rule would allow must ask instead
 * (docs/permissions-policy.md, "Edits stay in the workspace", "Reads stay in the workspace"): an
 * edit-kind call is judged by {@link editConcern}, a read-, search- or think-kind call by
 * {@link readConcern}; a call of both kinds by both. `undefined` when nothing stands in the way.
 */
export function confinementConcern(
  toolName: string,
  kinds: readonly ToolKind[],
  args: unknown,
  workspaceRoot: string | undefined,
): PathConcern | undefined {
  if (kinds.some((k) => EDIT_KINDS.includes(k))) {
    const written = firstStringArg(args, PATH_RULE_TOOLS[toolName] ?? []);
    // A `file:` URL is judged as written and as the path it names; another scheme names no file here.
    const readings = written === undefined ? [undefined] : pathReadings(written);
    if (readings === undefined) return 'no_path';
    for (const path of readings) {
      const concern = editConcern(path, workspaceRoot);
      if (concern !== undefined) return concern;
    }
  }
  if (kinds.some((k) => READ_KINDS.includes(k))) {
    return readConcern(toolName, args, workspaceRoot, Object.hasOwn(KNOWN_TOOL_KINDS, toolName));
  }
  return undefined;
}

/**
 * Whether an edit-kind call writes where a program finds code it runs (a protected path: `.git`,
 * `~/.gitconfig`, `~/.ssh`, …), by any reading of its path (docs/permissions-policy.md, "Deny rules
 * see the real command"): while rules about Bash are in force, such an edit would let a later line
 * the rules allow (`git status`) run what they deny. False for a call of no edit kind, or whose
 * path is not found.
 */
export function plantsCode(
  toolName: string,
  kinds: readonly ToolKind[],
  args: unknown,
  workspaceRoot: string | undefined,
): boolean {
  if (!kinds.some((k) => EDIT_KINDS.includes(k))) return false;
  const written = firstStringArg(args, PATH_RULE_TOOLS[toolName] ?? []);
  if (written === undefined) return false;
  const readings = pathReadings(written) ?? [written];
  return readings.some((path) => editPlantsCode(path, workspaceRoot));
}
