import {
  DEFAULT_MODE_TABLE,
  modeCell,
  type ModeCell,
  type ModeTableOverrides,
  type PermissionMode,
} from './modes.js';
import { EDIT_KINDS, TOOL_KINDS, type ToolKind } from './toolKinds.js';

/**
 * How much a mode lets run without asking, for the host's ceiling on remote mode changes
 * (docs/permissions-requirements.md R4.4, R14.3): a line the host places its ceiling on.
 */
const RANK: Record<PermissionMode, number> = {
  plan: 0,
  'read-only': 0,
  dontAsk: 0,
  default: 1,
  acceptEdits: 2,
  'safe-yolo': 3,
  bypassPermissions: 4,
};

/**
 * The ceiling a gate applies to remote mode changes when the host sets none: every mode but
 * `bypassPermissions` (`yolo`). Letting the app switch to bypass is an explicit choice in code,
 * `ceiling: 'bypassPermissions'` (docs/permissions.md, "Modes").
 */
export const DEFAULT_CEILING: PermissionMode = 'safe-yolo';

/**
 * True when `mode` ranks no higher than `ceiling`: plan, read-only, dontAsk < default <
 * acceptEdits < safe-yolo < bypassPermissions. The ranks are those of the default mode table; a
 * host that retargets cells (`modeTable`) chooses its ceiling with that in mind.
 */
export function withinCeiling(mode: PermissionMode, ceiling: PermissionMode = DEFAULT_CEILING): boolean {
  return RANK[mode] <= RANK[ceiling];
}

/**
 * True when `target` allows nothing without asking that `current` would ask for or deny, kind by
 * kind, with the host's cell overrides (docs/permissions-policy.md, "Mode ceiling"). Each cell
 * is placed on one line: deny < ask that is denied in the end (`dontAsk`) < ask < allow inside
 * the workspace (what every mode but bypass allows for reads and edits) < allow anywhere. So
 * `plan` is not lower than `default` (it allows reads that `default` asks for), and `dontAsk` is
 * lower than `default`.
 */
export function allowsNoMoreThan(
  target: PermissionMode,
  current: PermissionMode,
  modeTable?: ModeTableOverrides,
): boolean {
  return TOOL_KINDS.every((kind) => level(target, kind, modeTable) <= level(current, kind, modeTable));
}

const CELL_LEVEL: Readonly<Record<ModeCell, number>> = { deny: 0, ask: 2, allow: 3 };
const CONFINED_KINDS: readonly ToolKind[] = [...EDIT_KINDS, 'read', 'search', 'think'];

function level(mode: PermissionMode, kind: ToolKind, modeTable: ModeTableOverrides | undefined): number {
  const cell = modeCell(mode, kind, modeTable);
  if (cell === 'ask') return DEFAULT_MODE_TABLE[mode].unresolved === 'deny' ? 1 : 2;
  if (cell === 'allow' && (mode === 'bypassPermissions' || !CONFINED_KINDS.includes(kind))) return 4;
  return CELL_LEVEL[cell];
}

/**
 * Whether a remote input (the app's pick, a legacy answer's `mode`) may switch from `current` to
 * `target`: when `target` is within the ceiling, or when it allows no more than `current`
 * ({@link allowsNoMoreThan}). `ceiling: null` sets no ceiling at all (the host refuses remote
 * changes right now): only such a lowering goes through. Lowering never means a mode that
 * allows something the current one asks for, whatever channel asks for it.
 */
export function remoteModeChangeAllowed(
  target: PermissionMode,
  current: PermissionMode,
  ceiling: PermissionMode | null = DEFAULT_CEILING,
  modeTable?: ModeTableOverrides,
): boolean {
  return (ceiling !== null && withinCeiling(target, ceiling)) || allowsNoMoreThan(target, current, modeTable);
}
