import type { PermissionsErrorCode } from '../errorCodes.js';
import { SdkError } from '../errors.js';
import { MAX_TIMEOUT_MS } from '../ports/wait.js';
import { err, ok, type Result } from '../result.js';
import type { Decision } from './decision.js';

/** What an expired permission request resolves to. Never `allow` (docs/permissions-requirements.md R9.2). */
export type TimeoutAction = 'deny' | 'cancel';

/**
 * A validated timeout setting. Without `timeoutMs` a request waits for as long as it takes: a
 * remote human may answer hours later, so there is no default timeout (docs/permissions-requirements.md R9.1).
 */
export interface TimeoutPolicy {
  readonly timeoutMs?: number;
  readonly onTimeout: TimeoutAction;
}

/** Codes {@link validateTimeoutPolicy} can fail with. */
export type TimeoutErrorCode = Extract<
  PermissionsErrorCode,
  'permissions.unsafe_timeout_action' | 'permissions.invalid_timeout'
>;

/** The message given to the model when a request expires. */
export const TIMEOUT_MESSAGE = 'Permission request timed out.';

/**
 * Checks a host's `{ timeoutMs, onTimeout }` at configuration. `onTimeout` defaults to `deny`;
 * `allow` is refused with `permissions.unsafe_timeout_action`: silence must never approve.
 * `timeoutMs` must be a positive integer number of milliseconds, at most {@link MAX_TIMEOUT_MS}.
 */
export function validateTimeoutPolicy(
  input: { readonly timeoutMs?: unknown; readonly onTimeout?: unknown } = {},
): Result<TimeoutPolicy, SdkError<TimeoutErrorCode>> {
  const { timeoutMs, onTimeout = 'deny' } = input;
  if (onTimeout === 'allow') {
    return err(
      new SdkError(
        'permissions.unsafe_timeout_action',
        'onTimeout: "allow" is not supported: an unanswered request must not run the tool.',
        {
          hint: 'Use onTimeout: "deny" or "cancel"',
        },
      ),
    );
  }
  if (onTimeout !== 'deny' && onTimeout !== 'cancel') {
    return err(
      new SdkError('permissions.invalid_timeout', `Unknown onTimeout ${JSON.stringify(onTimeout)}.`, {
        hint: 'Use onTimeout: "deny" or "cancel"',
      }),
    );
  }
  if (timeoutMs === undefined) return ok({ onTimeout });
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs <= 0 ||
    timeoutMs > MAX_TIMEOUT_MS
  ) {
    return err(
      new SdkError(
        'permissions.invalid_timeout',
        `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}.`,
        {
          hint: 'Leave timeoutMs out to wait without a limit',
        },
      ),
    );
  }
  return ok({ timeoutMs, onTimeout });
}

/** The decision an expired request resolves to under `policy`. */
export function timeoutDecision(policy: TimeoutPolicy): Decision {
  return {
    outcome: policy.onTimeout === 'deny' ? 'deny' : 'cancelled',
    source: 'timeout',
    message: TIMEOUT_MESSAGE,
  };
}
