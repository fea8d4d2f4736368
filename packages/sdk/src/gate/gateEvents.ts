import type { PermissionOption } from '../protocol/sessionMessage.js';
import type { GatedCall } from '../stream/gatePorts.js';
import type { AppliedAnswer, SettledRequest } from './broker.js';

/**
 * A permission request as `gate.events$` shows it to a host: what was asked and when. The gate's
 * own request (`PendingRequest`, which claims, times out and resolves) stays inside the gate.
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

/** What happens to requests, as `gate.events$` reports it (reminders, dashboards, logs). */
export type GateEvent =
  | { readonly kind: 'requested'; readonly request: RequestView }
  | {
      readonly kind: 'settled';
      readonly request: RequestView;
      readonly settled: SettledRequest;
      /** The user's answer, when one settled it (not a rule, the mode, a timeout or a cancellation). */
      readonly answer?: AppliedAnswer;
    };
