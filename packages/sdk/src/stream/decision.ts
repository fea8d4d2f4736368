import type { PermissionOptionKind } from '../protocol/sessionMessage.js';

/** What happened to a gated call: it may run, it may not, or nobody decided (abort, shutdown). */
export type DecisionOutcome = 'allow' | 'deny' | 'cancelled';

/**
 * Who or what decided (docs/permissions-requirements.md R3, R15 `GateSource`): the user (by any channel), a rule, the
 * mode, the sandbox (a shell call allowed because it runs confined, docs/sandbox.md), or the runtime
 * itself on timeout, cancellation or shutdown.
 */
export type DecisionSource = 'user' | 'rule' | 'mode' | 'sandbox' | 'timeout' | 'cancel' | 'shutdown';

/** The channel a user's answer came by (docs/architecture.md, "Permissions"). */
export type DecisionVia = 'stream' | 'rpc' | 'local';

/**
 * The resolution of one permission request or gated call.
 *
 * Automatic decisions (`rule`, `mode`) are never written as a user-role `permission-response`
 * (docs/permissions-requirements.md §4); they carry `source` so the gate can record them as an agent-side annotation.
 * `rule` is an optional extension naming the rule that decided, so that a denial can end the call
 * with an error that names it.
 */
export interface Decision {
  readonly outcome: DecisionOutcome;
  readonly optionId?: string;
  readonly kind?: PermissionOptionKind;
  readonly source: DecisionSource;
  readonly via?: DecisionVia;
  /** Text for the model (a deny reason, the user's feedback, a timeout notice). */
  readonly message?: string;
  /** The rule that decided, for `source: 'rule'`. */
  readonly rule?: string;
}
