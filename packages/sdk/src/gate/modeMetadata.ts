import type { Logger } from '../logger.js';
import type { SessionStateStore, StateObject } from '../ports/sessionState.js';
import type { PermissionMode } from '../policy/modes.js';

/** What today's app shows for each mode in its permission menu (docs/wire.md §4.2, `operatingModes`). */
export const MODE_LABELS: Readonly<Record<PermissionMode, string>> = {
  default: 'Default',
  acceptEdits: 'Accept edits',
  plan: 'Plan',
  'read-only': 'Read only',
  dontAsk: "Don't ask",
  'safe-yolo': 'Safe yolo',
  bypassPermissions: 'Yolo',
};

/**
 * Writes the gate's real mode where today's app reads it (docs/permissions.md, "The mode in the
 * app"): `metadata.permissionMode` (the app shows it as the selected mode, and sends it back with
 * each message), `currentOperatingModeCode`, and `operatingModes`, the menu the app offers for a
 * flavor it does not know (this SDK's `happy-session`): the modes a pick may switch to. Writes
 * merge over the metadata the app and others wrote; a write that fails is logged and never changes
 * the mode.
 *
 * The app writes its picks to `metadata.permissionMode` too. A pick found there while writing (it
 * raced with this write and would be overwritten) is handed to `onPick` before it is lost; a value
 * that equals `currentOperatingModeCode` is a gate's own write (a previous process's), not a pick.
 */
export class ModeMetadata {
  private target: { mode: PermissionMode; menu: readonly PermissionMode[] } | undefined;
  private writing: Promise<void> | undefined;
  private written: string | undefined;

  constructor(
    private readonly state: SessionStateStore,
    private readonly logger: Logger,
    private readonly onPick: (pick: string) => void,
  ) {}

  /** The mode the metadata shows (or is about to). */
  get shown(): unknown {
    return this.state.metadata.permissionMode;
  }

  /** Writes `mode` and `menu`; the latest call wins when writes overlap. */
  publish(mode: PermissionMode, menu: readonly PermissionMode[]): Promise<void> {
    this.target = { mode, menu };
    this.writing ??= this.drain();
    return this.writing;
  }

  /** Resolves when the last write has settled. */
  settled(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.target) {
      const { mode, menu } = this.target;
      this.target = undefined;
      let raced: string | undefined;
      try {
        await this.state.updateMetadata((current: StateObject) => {
          const shown = current.permissionMode;
          // A pick changes `permissionMode` alone: where it still equals the mode a gate wrote
          // beside it (`currentOperatingModeCode`), it is that gate's write, maybe a dead one's,
          // not the person's pick, and a successor started in a stricter mode keeps its own.
          const gateWrote = shown === current.currentOperatingModeCode;
          raced =
            typeof shown === 'string' && !gateWrote && shown !== this.written && shown !== mode
              ? shown
              : undefined;
          return {
            ...current,
            permissionMode: mode,
            currentOperatingModeCode: mode,
            operatingModes: menu.map((code) => ({ code, value: MODE_LABELS[code] })),
          };
        });
        this.written = mode;
      } catch (error) {
        this.logger.warn('permission mode metadata write failed', { error: String(error) });
      }
      if (raced !== undefined) this.onPick(raced);
    }
    this.writing = undefined;
  }
}
