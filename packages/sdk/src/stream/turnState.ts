import type { SdkError } from '../errors.js';
/** What a turn needs of a call still open in it: its nesting, and a way to end it. */
export interface OpenCall {
  /** The call whose scope this call was made in, if any. */
  readonly parentCall: OpenCall | undefined;
  /** Appends the call's one `tool-call-end` (a second end appends nothing). */
  end(options: { readonly error: string }): unknown;
}

/** What a turn needs of a text stream still open in it: which call's scope it writes into, and a way to end it. */
export interface OpenStream {
  /** The call whose scope the stream writes into, or undefined at the top of the turn. */
  readonly owner: OpenCall | undefined;
  /** Writes what the stream holds and ends it. */
  end(): unknown;
}

/** What the builders of one turn share: whether it ended, its open calls in creation order, and its stop. */
export interface TurnState {
  readonly turnId: string;
  ended: boolean;
  readonly openCalls: Set<OpenCall>;
  /** Aborted when the user stops the turn or it ends: `turn.signal`, and every call's `signal`. */
  readonly stop: AbortController;
  /** Text streams not ended yet: a call or turn that ends writes what they hold first. */
  readonly streams: Set<OpenStream>;
  /**
   * Set when the turn was ended by a stop (the session closing, SIGINT or SIGTERM through
   * `connect()`) rather than by the program's own `end()`: what the program still writes to it is
   * not appended and settles with `stream.turn_stopped` (docs/architecture.md, "Builders").
   */
  stopped?: boolean;
  /**
   * The error a stop by revocation carries (`session.taken_over`, docs/writer-lease.md): what the
   * program still writes to the turn settles with it instead of `stream.turn_stopped`.
   */
  stoppedBy?: SdkError;
  /** The logger has said once that writes to this stopped turn are not appended. */
  stopNoted?: boolean;
}
