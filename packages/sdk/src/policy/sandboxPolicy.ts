import { RESERVED_WORDS } from './bashGrammar.js';
import type { ModeTableOverrides, PermissionMode } from './modes.js';
import { firstStringArg } from './ruleMatch.js';
import type { ShellSplit } from './shell.js';
import { canonicalToolName } from './toolKinds.js';

/**
 * What the policy knows of the sandbox the host runs its shell calls in (docs/sandbox.md, "The
 * policy and the sandbox"). `happy-session/sandbox` hands one over (`shell.policy`).
 */
export interface SandboxPolicy {
  /**
   * True when the host's executor runs these calls inside the sandbox. False (no bubblewrap, no
   * user namespaces, an unsupported OS) and the policy asks as it would without a sandbox.
   */
  readonly available: boolean;
  /** The tools whose calls the sandbox runs; default `['Bash']`. */
  readonly tools?: readonly string[];
}

/** The modes in which a sandboxed shell call runs without asking; the others keep their own cell. */
const SANDBOXED_MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'safe-yolo'];

/** The argument by which a call asks to run outside the sandbox (Claude Code's spelling). */
export const LEAVE_SANDBOX_ARG = 'dangerouslyDisableSandbox';

/**
 * True when the policy read every word of `split` as bash will: no hazard, every word a literal
 * without control characters, no reserved word. Where deny or ask rules about shell commands are
 * in force, only such a line runs unasked in the sandbox: a rule must not be missed because the
 * line was misread (docs/sandbox.md, "The policy and the sandbox").
 */
function readExactly(split: ShellSplit | undefined): boolean {
  if (!split?.ok || split.hazards.length > 0 || split.commands.length === 0) return false;
  return split.commands.every(
    (c) =>
      !RESERVED_WORDS.has(c.words[0]?.value ?? '') &&
      c.words.every((w) => w.value !== undefined && !hasControlCharacter(w.value)),
  );
}

/**
 * The sandbox's word on a call whose mode cell is `ask`: `allow` when it will run sandboxed,
 * `leave` when it asks to run outside (the person is asked, whatever the rules say), `undefined`
 * when the sandbox has nothing to say. `guarded` holds the line's split when deny or ask rules
 * about commands are in force: then only a line read exactly is allowed.
 */
export function sandboxVerdict(
  sandbox: SandboxPolicy | undefined,
  mode: PermissionMode,
  toolName: string,
  args: unknown,
  guarded?: { readonly split: ShellSplit | undefined },
): 'allow' | 'leave' | undefined {
  if (!sandbox?.available || !SANDBOXED_MODES.includes(mode)) return undefined;
  const tools = (sandbox.tools ?? ['Bash']).map(canonicalToolName);
  if (!tools.includes(canonicalToolName(toolName))) return undefined;
  if (typeof args !== 'object' || args === null || firstStringArg(args, ['command']) === undefined)
    return undefined;
  const leave = (args as Record<string, unknown>)[LEAVE_SANDBOX_ARG];
  if (leave !== undefined && leave !== false) return 'leave';
  if (guarded && !readExactly(guarded.split)) return undefined;
  return 'allow';
}

/**
 * With a sandbox, `safe-yolo` is what Happy means by it (docs/permissions-requirements.md R4.2):
 * edits are allowed too (still only inside the workspace and off protected paths). Host cells win.
 */
export function sandboxModeTable(
  sandbox: SandboxPolicy | undefined,
  table: ModeTableOverrides | undefined,
): ModeTableOverrides | undefined {
  if (!sandbox?.available) return table;
  const safeYolo = { edit: 'allow', delete: 'allow', move: 'allow', ...table?.['safe-yolo'] } as const;
  return { ...table, 'safe-yolo': safeYolo };
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
