import type { PermissionMode } from './modes.js';

/**
 * How much a mode lets run without asking, for the host ceiling (docs/permissions-requirements.md R4.4, R14.3): a remote
 * input may not move the mode above the ceiling. Modes that never allow more than reads rank lowest.
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

/** True when `mode` allows no more than `ceiling`. */
export function withinCeiling(mode: PermissionMode, ceiling: PermissionMode | undefined): boolean {
  return ceiling === undefined || RANK[mode] <= RANK[ceiling];
}
