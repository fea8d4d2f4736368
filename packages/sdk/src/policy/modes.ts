import { SdkError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import type { ToolKind } from './toolKinds.js';

/**
 * Permission modes (docs/permissions-requirements.md §1.6 and R4.2). `yolo`, the Happy CLI's spelling, is accepted by
 * {@link parseMode} as an alias of `bypassPermissions`.
 */
export type PermissionMode =
  'default' | 'acceptEdits' | 'plan' | 'read-only' | 'dontAsk' | 'safe-yolo' | 'bypassPermissions';

/** Every canonical {@link PermissionMode}. */
export const PERMISSION_MODES: readonly PermissionMode[] = [
  'default',
  'acceptEdits',
  'plan',
  'read-only',
  'dontAsk',
  'safe-yolo',
  'bypassPermissions',
];

/** Other spellings of a mode that today's Happy app and CLI send, mapped to the canonical mode. */
export const MODE_ALIASES: Readonly<Record<string, PermissionMode>> = Object.freeze({
  yolo: 'bypassPermissions',
});

/**
 * What a mode says about one tool kind: decide (`allow` / `deny`) or leave it to the allow rules
 * and, failing those, to the mode's {@link ModeRow.unresolved} answer.
 */
export type ModeCell = 'allow' | 'deny' | 'ask';

/** One mode: a cell per tool kind, and what happens when nothing decided. */
export interface ModeRow {
  readonly cells: Readonly<Record<ToolKind, ModeCell>>;
  /** `ask` prompts the user; `deny` (the `dontAsk` mode) refuses without prompting. */
  readonly unresolved: 'ask' | 'deny';
}

function row(read: ModeCell, edit: ModeCell, execute: ModeCell, unresolved: 'ask' | 'deny' = 'ask'): ModeRow {
  return Object.freeze({
    cells: Object.freeze({
      read,
      search: read,
      think: read,
      edit,
      delete: edit,
      move: edit,
      execute,
      fetch: execute,
      switch_mode: execute,
      other: execute,
    }),
    unresolved,
  });
}

/**
 * The mode table of docs/permissions-requirements.md R4.2, by kind. Columns: read/search/think; edit/delete/move;
 * execute/fetch/switch_mode/other — the last column is the most dangerous class, where unknown
 * kinds land.
 *
 * | mode | read | edit | execute & other |
 * |---|---|---|---|
 * | default | ask | ask | ask |
 * | acceptEdits | ask | allow | ask |
 * | plan | allow | deny | deny |
 * | read-only | allow | deny | ask |
 * | dontAsk | ask | ask | ask, and anything unresolved is denied |
 * | safe-yolo | allow | ask | ask |
 * | bypassPermissions (yolo) | allow | allow | allow |
 *
 * `safe-yolo` deviates from R4.2 (which allows everything "relying on the sandbox"): this SDK does
 * not know whether a sandbox exists, so by default it behaves like Gemini's safe-yolo today (reads
 * allowed, the rest asked). A host that does run a sandbox retargets the cells through
 * {@link ModeTableOverrides}.
 */
export const DEFAULT_MODE_TABLE: Readonly<Record<PermissionMode, ModeRow>> = Object.freeze({
  default: row('ask', 'ask', 'ask'),
  acceptEdits: row('ask', 'allow', 'ask'),
  plan: row('allow', 'deny', 'deny'),
  'read-only': row('allow', 'deny', 'ask'),
  dontAsk: row('ask', 'ask', 'ask', 'deny'),
  'safe-yolo': row('allow', 'ask', 'ask'),
  bypassPermissions: row('allow', 'allow', 'allow'),
});

/** Host retargeting of single cells of {@link DEFAULT_MODE_TABLE} (R4.2 "the host can retarget"). */
export type ModeTableOverrides = Partial<Record<PermissionMode, Partial<Record<ToolKind, ModeCell>>>>;

/** The cell for `mode` × `kind`, after the host's overrides. */
export function modeCell(mode: PermissionMode, kind: ToolKind, overrides?: ModeTableOverrides): ModeCell {
  return overrides?.[mode]?.[kind] ?? DEFAULT_MODE_TABLE[mode].cells[kind];
}

/** True when `value` is a canonical {@link PermissionMode} (aliases are not). */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value);
}

/**
 * Validates a mode string from outside (a message's `meta.permissionMode`, a legacy RPC `mode`)
 * and returns the canonical mode. Unknown strings are refused, never passed on to a backend
 * (docs/permissions-requirements.md R4.3; today's Claude handler applied them verbatim).
 */
export function parseMode(value: unknown): Result<PermissionMode, SdkError<'permissions.invalid_mode'>> {
  if (isPermissionMode(value)) return ok(value);
  if (typeof value === 'string' && Object.hasOwn(MODE_ALIASES, value)) return ok(MODE_ALIASES[value]!);
  return err(
    new SdkError('permissions.invalid_mode', `Unknown permission mode ${JSON.stringify(value)}.`, {
      hint: `Use one of ${PERMISSION_MODES.join(', ')} (or yolo).`,
    }),
  );
}
