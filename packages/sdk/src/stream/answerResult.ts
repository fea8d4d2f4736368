import type { PermissionsErrorCode, QuestionsErrorCode } from '../errorCodes.js';
import type { RpcOutcome } from '../ports/rpc.js';
import type {
  PermissionOption,
  PermissionRequestMessage,
  QuestionEndMessage,
} from '../protocol/sessionMessage.js';
import type { PermissionDecision } from './plugins.js';
import type { AskResult } from './questionPorts.js';
import type { Delivered } from './types.js';

/**
 * Why the gate did not apply an answer: codes of the SDK's `permissions.*` union, as an `SdkError`
 * would carry (docs/permissions-requirements.md R11; `call_mismatch` cannot arise with callId keying).
 */
export type AnswerErrorCode = Extract<
  PermissionsErrorCode,
  | 'permissions.unknown_request'
  | 'permissions.invalid_option'
  | 'permissions.invalid_payload'
  | 'permissions.not_allowed'
  | 'permissions.mode_not_allowed'
  | 'permissions.rule_mismatch'
  | 'permissions.invalid_updated_input'
>;

/** Why the desk refused an answer to a question: a code of the `questions.*` family (docs/errors.md). */
export type QuestionRefusalCode = Exclude<
  QuestionsErrorCode,
  'questions.not_configured' | 'questions.invalid' | 'questions.invalid_timeout'
>;

/** A refused answer: nothing changed, and the question (if pending) still waits. */
export interface QuestionRefusal {
  readonly status: 'refused';
  /** Why, as a `questions.*` code (docs/errors.md, "Questions"). */
  readonly code: QuestionRefusalCode;
  /** The reason in words, for the person. */
  readonly message: string;
  /** The question the answer was for, when it named one. */
  readonly questionId?: string;
  /** For `questions.settled`: how the question ended. */
  readonly ended?: QuestionEndMessage['status'];
}

/** An answer on its way: the stream record and the RPC settle separately. */
export interface SentPermissionAnswer {
  /** The answer went out (see `recorded` and `rpc` for how far). */
  readonly status: 'sent';
  /** The request answered. */
  readonly request: PermissionRequestMessage;
  readonly option: PermissionOption;
  /** Settles once the user's `permission-response` is stored; `undefined` when sent by RPC only. */
  readonly recorded: Promise<Delivered> | undefined;
  /**
   * The `permission` RPC's outcome (`RPC method not available` when the agent has no gate);
   * `undefined` when sent on the stream only.
   */
  readonly rpc: Promise<RpcOutcome> | undefined;
}

/**
 * A request that was settled before the answer: answered already, or its call ended. Nothing
 * was written, so running a script again never adds a second response.
 */
export interface SettledPermissionRequest {
  /** The request was no longer pending: nothing was written. */
  readonly status: 'settled';
  /** The request that was left alone. */
  readonly request: PermissionRequestMessage;
}

/**
 * What the person's answer got, wherever it is given: `gate.answer()` (`AnswerResult<'gate'>`),
 * `desk.answer()` (`AnswerResult<'desk'>`) and `UserSession.answer()` (`AnswerResult<'user'>`).
 * One type and one `status` to switch on; each room's statuses are the ones its RPC result
 * already carries on the wire, so the Happy app reads them unchanged. Never thrown.
 *
 * - `'gate'`, also the `permission` RPC's result: `applied`, `already_resolved` (another channel's
 *   answer came first) or `error` with a code; never an approval unless `applied` with an allow.
 * - `'desk'`, also the `communication` RPC's result: `applied` (it ended the question) or `refused`.
 * - `'user'`: `sent` (on its way, see `recorded` and `rpc`), or `settled` (the request was no
 *   longer pending, so nothing was written).
 */
export type AnswerResult<At extends 'gate' | 'desk' | 'user' = 'gate' | 'desk' | 'user'> = At extends 'gate'
  ? | { readonly status: 'applied'; readonly callId: string; readonly decision: PermissionDecision }
    | {
        readonly status: 'already_resolved';
        readonly callId: string;
        readonly decision: PermissionDecision;
        readonly resolvedAt: number;
      }
    | {
        readonly status: 'error';
        readonly code: AnswerErrorCode;
        readonly message: string;
        readonly issues?: readonly string[];
      }
  : At extends 'desk'
    ? | { readonly status: 'applied'; readonly questionId: string; readonly result: AskResult }
      | QuestionRefusal
    : SentPermissionAnswer | SettledPermissionRequest;
