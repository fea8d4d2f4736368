import { safely } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GateWriter } from '../stream/gatePorts.js';
import type { GatePolicy } from './gatePolicy.js';
import { remoteModeChangeAllowed } from '../policy/modeCeiling.js';
import type { ModeMetadata } from './modeMetadata.js';
import type { PermissionMode } from '../policy/modes.js';
import { parseMode, PERMISSION_MODES } from '../policy/modes.js';
import type { AnswerResult } from '../stream/answerResult.js';
import { refuse } from './refuse.js';

/**
 * Where a mode change comes from: the host's own code (trusted), or the user (the app's pick, a
 * legacy answer's `mode`), which is held to the ceiling unless it lowers the mode.
 */
export type ModeSource = 'host' | 'user';

export interface ModeControlDeps {
  readonly policy: GatePolicy;
  readonly writer: GateWriter;
  readonly logger: Logger;
  /** The session's metadata, for today's app (absent without a state store). */
  readonly metadata: ModeMetadata | undefined;
  /** Set once from the gate's options: no mode change moves it. */
  readonly ceiling: PermissionMode;
  /** The host's `acceptRemoteAnswers`: while it says false, a remote input may only lower the mode. */
  readonly acceptRemoteAnswers: (() => boolean) | undefined;
}

/** What a mode change came to: refused (with why), or taken (`changed` false when the mode was already so). */
export type ModeChange = { readonly refused: AnswerResult<'gate'> } | { readonly changed: boolean };

/**
 * The gate's mode (docs/permissions.md, "Modes"): changes by the host and by the user, the ceiling
 * on remote changes, and the mode and menu written to the session's metadata for today's app.
 */
export class ModeControl {
  private lastRefusedPick: string | undefined;

  constructor(private readonly deps: ModeControlDeps) {}

  // The policy holds the mode: it is what decides by it.
  get mode(): PermissionMode {
    return this.deps.policy.mode;
  }

  get ceiling(): PermissionMode {
    return this.deps.ceiling;
  }

  /**
   * Changes the mode. A `host` change is trusted. A `user` change is accepted when
   * {@link ModeControl.remoteChangeAllowed}; otherwise it is refused, noted in the stream, and the
   * real mode is written back to the metadata. Every change is recorded in the stream and written
   * to the metadata. The gate re-decides its pending requests after a `user` change.
   */
  set(input: string, source: ModeSource): ModeChange {
    const parsed = parseMode(input);
    if (!parsed.ok) return this.refusePick(input, source, 'it is not a permission mode');
    const mode = parsed.value;
    if (source === 'user' && !this.remoteChangeAllowed(mode)) {
      const why = !remoteAnswersAccepted(this.deps.acceptRemoteAnswers)
        ? 'remote changes are not accepted right now'
        : `it is above the ceiling ${this.deps.ceiling}`;
      return this.refusePick(input, source, why);
    }
    if (mode === this.mode) {
      this.publishIfStale();
      return { changed: false };
    }
    this.deps.policy.mode = mode;
    this.lastRefusedPick = undefined;
    this.note(`Permission mode changed to ${mode} (by ${source}).`);
    this.publish();
    return { changed: true };
  }

  /**
   * The app's mode pick: a mode string is a `user` change; `null` or nothing (the app cleared its
   * pick) writes the real mode back.
   */
  handlePick(pick: unknown): ModeChange {
    if (pick === undefined || pick === null) {
      this.publishIfStale();
      return { changed: false };
    }
    if (typeof pick !== 'string') return this.refusePick(String(pick), 'user', 'it is not a permission mode');
    return this.set(pick, 'user');
  }

  /**
   * A remote mode change goes through when it stays within the ceiling, or when it truly lowers
   * the mode (the target allows nothing the current mode asks for); while remote inputs are
   * refused, only a true lowering.
   */
  remoteChangeAllowed(mode: PermissionMode): boolean {
    const ceiling = remoteAnswersAccepted(this.deps.acceptRemoteAnswers) ? this.deps.ceiling : null;
    return remoteModeChangeAllowed(mode, this.mode, ceiling, this.deps.policy.settings.modeTable);
  }

  /** Writes the real mode and the menu of modes a pick may choose to the metadata, for today's app. */
  publish(): void {
    const metadata = this.deps.metadata;
    if (!metadata) return;
    const mode = this.mode;
    const menu = PERMISSION_MODES.filter(
      (m) =>
        m === mode ||
        remoteModeChangeAllowed(m, mode, this.deps.ceiling, this.deps.policy.settings.modeTable),
    );
    void metadata.publish(mode, menu);
  }

  /** Resolves when the metadata has caught up. */
  async settled(): Promise<void> {
    await this.deps.metadata?.settled();
  }

  private publishIfStale(): void {
    if (this.deps.metadata && this.deps.metadata.shown !== this.mode) this.publish();
  }

  /** Refuses a user's mode change: notes it in the stream (once per pick) and writes the real mode back. */
  private refusePick(pick: string, source: ModeSource, why: string): ModeChange {
    const shown = JSON.stringify(pick.slice(0, 64));
    if (source === 'user') {
      if (this.lastRefusedPick !== pick) {
        this.lastRefusedPick = pick;
        this.note(`Permission mode ${shown} refused: ${why}; the mode stays ${this.mode}.`);
      }
      this.publish();
    }
    return { refused: refuse('permissions.mode_not_allowed', `Mode ${shown} refused: ${why}.`) };
  }

  /** Notes a change in the stream; a closed writer only skips the note. */
  private note(text: string): void {
    safely(this.deps.logger, 'mode note', () => this.deps.writer.service(text));
  }
}

/** The host's `acceptRemoteAnswers` read now; one that throws refuses (fail closed). */
export function remoteAnswersAccepted(accept: (() => boolean) | undefined): boolean {
  try {
    return accept?.() ?? true;
  } catch {
    return false;
  }
}
