import type { PermissionMode } from './modes.js';

/**
 * How much a mode lets run without asking, for the ceiling on remote mode changes
 * (docs/permissions-requirements.md R4.4, R14.3). Modes that never allow more than reads rank
 * lowest.
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
 * Whether a remote input (the app's pick, a legacy answer's `mode`) may switch from `current` to
 * `target`: when `target` is within the ceiling, or when it is stricter than `current` — lowering
 * the mode always works, whatever channel asks for it.
 */
export function remoteModeChangeAllowed(
  target: PermissionMode,
  current: PermissionMode,
  ceiling: PermissionMode = DEFAULT_CEILING,
): boolean {
  return withinCeiling(target, ceiling) || withinCeiling(target, current);
}
