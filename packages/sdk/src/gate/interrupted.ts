import type { PermissionRequestMessage, PermissionResponseMessage } from '../protocol/sessionMessage.js';
import type { PermissionDecision } from '../stream/plugins.js';

// Defined beside the ledger's other notes, which displays leave out (stream/permissionLedger.ts).
export { PERMISSION_CARRIED_PREFIX } from '../stream/permissionLedger.js';

/**
 * A permission request a dead process left waiting, as a successor's gate took it up
 * (docs/recovery.md, "Interrupted calls"): what it asked, and the first valid answer a person gave
 * while no agent was there, if any. The old call is ended; `session.resume()` makes a new one.
 */
export interface InterruptedRequest {
  /** The `permission-request` record: its tool, the arguments it showed, its options. */
  readonly request: PermissionRequestMessage;
  /** The answer that decided it, confirmed by this process's note in the old call. */
  readonly answer?: {
    /** The person's `permission-response` record. */
    readonly record: PermissionResponseMessage;
    /** What it decided: an allow lets a resumed call with exactly this input run once. */
    readonly decision: PermissionDecision;
  };
}
