import type { PermissionOption } from '../protocol/sessionMessage.js';
import type { GatedCall } from '../stream/gatePorts.js';
import type { PermissionDecision } from '../stream/plugins.js';

/**
 * A permission request as `gate.events$()` shows it to a host: what was asked and when. The gate's
 * own request (its waiter, timers and record positions) stays inside the gate.
 */
export interface RequestView {
  readonly call: Pick<GatedCall, 'callId' | 'toolName' | 'title' | 'args' | 'turnId'>;
  readonly options: readonly PermissionOption[];
  readonly createdAt: number;
  /** The id of the `permission-request` record: what an answer names (`requestId`, the legacy `id`). */
  readonly recordId: string;
  /** True once the request has its decision. */
  readonly settled: boolean;
}

/** The answer that settled a request, as the agent recorded it. */
export interface AppliedAnswer {
  readonly option: PermissionOption;
  /** The agent's record of it (a user `permission-response` with `via`), when it could be appended. */
  readonly record: { readonly id: string; readonly time: number } | undefined;
  /** The arguments that run, when the user edited them. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
}

/** What the gate keeps of a settled request: enough to answer late answers. */
export interface SettledRequest {
  readonly callId: string;
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly options: readonly PermissionOption[];
  readonly decision: PermissionDecision;
  readonly at: number;
  /** Id of the agent's record of the answer it applied. */
  readonly recordId: string | undefined;
}

/** What happens to requests, as `gate.events$()` reports it (reminders, dashboards, logs). */
export type GateEvent =
  | { readonly kind: 'requested'; readonly request: RequestView }
  | {
      readonly kind: 'settled';
      readonly request: RequestView;
      readonly settled: SettledRequest;
      /** The user's answer, when one settled it (not a rule, the mode, a timeout or a cancellation). */
      readonly answer?: AppliedAnswer;
    };

/** A request as the gate's own adapters see it: the whole call (its kind, whether it is redacted). */
export interface GateRequestView extends RequestView {
  readonly call: GatedCall;
}

/**
 * The events the gate's adapters follow (the agentState mirror, the delayed push, the rule
 * grants): {@link GateEvent}s whose request shows the whole call.
 */
export type RequestEvent =
  | { readonly kind: 'requested'; readonly request: GateRequestView }
  | {
      readonly kind: 'settled';
      readonly request: GateRequestView;
      readonly settled: SettledRequest;
      readonly answer?: AppliedAnswer;
    };
