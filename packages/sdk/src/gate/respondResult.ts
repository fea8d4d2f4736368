import type { PermissionsErrorCode } from '../errorCodes.js';
import type { PermissionDecision } from '../stream/plugins.js';

/**
 * Why an answer was not applied: codes of the SDK's `permissions.*` union, as an `SdkError` would
 * carry (docs/permissions-requirements.md R11; `call_mismatch` cannot arise with callId keying).
 */
export type RespondErrorCode = Extract<
  PermissionsErrorCode,
  | 'permissions.unknown_request'
  | 'permissions.invalid_option'
  | 'permissions.invalid_payload'
  | 'permissions.not_allowed'
  | 'permissions.mode_not_allowed'
  | 'permissions.rule_mismatch'
  | 'permissions.invalid_updated_input'
>;

/**
 * What an answer to a permission request got, by any channel. Returned to the RPC caller as the
 * RPC result; never thrown, and never an approval unless `status` is `applied` with an allow.
 */
export type RespondResult =
  | { readonly status: 'applied'; readonly callId: string; readonly decision: PermissionDecision }
  | {
      readonly status: 'already_resolved';
      readonly callId: string;
      readonly decision: PermissionDecision;
      readonly resolvedAt: number;
    }
  | {
      readonly status: 'error';
      readonly code: RespondErrorCode;
      readonly message: string;
      readonly issues?: readonly string[];
    };

/** A typed refusal. */
export function refuse(code: RespondErrorCode, message: string, issues?: readonly string[]): RespondResult {
  return { status: 'error', code, message, ...(issues ? { issues } : {}) };
}
