import { describePolicyResult } from '../policy/policy.js';
import type { PermissionOption } from '../protocol/sessionMessage.js';
import type { Ruling } from '../stream/arbiter.js';
import type { GateWriter } from '../stream/gatePorts.js';
import { frozenArgs } from '../stream/frozenArgs.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { Answer, GateAnswer } from './answers.js';
import { decisionFromOption } from './decision.js';
import type { GatePolicy } from './gatePolicy.js';
import type { ModeControl } from './modeControl.js';
import type { RequestItem } from './request.js';
import type { AnswerResult } from '../stream/answerResult.js';
import { refuse } from './refuse.js';
import { isSdkError } from '../errors.js';

/** What the gate keeps of a decided request: the decision, and the id of the record that holds it. */
export interface Decided {
  readonly decision: PermissionDecision;
  /** The option a person's answer picked. */
  readonly option?: PermissionOption;
  /** Id of the agent's record of the answer it applied, once appended. */
  readonly recordId?: string;
}

/** What the rule reads besides the request and the answer: the gate's configuration as it is now. */
export interface AnswerRuleContext {
  readonly policy: GatePolicy;
  /** The ceiling of remote mode switches (docs/permissions.md, "Modes"). */
  readonly modes: Pick<ModeControl, 'remoteChangeAllowed' | 'ceiling'>;
  /** Shows a value as the writer stores it, every secret redacted. */
  readonly writer: Pick<GateWriter, 'redactValue'>;
  readonly validateUpdatedInput:
    ((toolName: string, input: Readonly<Record<string, unknown>>) => boolean) | undefined;
}

/**
 * Whether an answer decides a request, and how (docs/permissions.md, "One arbitration"). The
 * gate's own decisions and the decisions its sealed records hold always count. A person's answer
 * counts when it names the request (or the call's first), picks an option the request offers, of
 * the kind it claims, with edited arguments that pass the deny rules and the host's check, and a
 * mode switch within the ceiling; otherwise it is refused with a typed result and the request
 * stays open. Nothing here throws: an internal failure refuses.
 */
export function judgeAnswer(
  request: RequestItem,
  given: GateAnswer,
  context: AnswerRuleContext,
): Ruling<Decided, AnswerResult<'gate'>> {
  if (given.by === 'gate') return { decision: { decision: given.decision } };
  if (given.by === 'record')
    return {
      decision: { decision: given.decision, ...(given.recordId ? { recordId: given.recordId } : {}) },
    };
  try {
    return judgePerson(request, given.answer, context);
  } catch {
    return { refusal: refuse('permissions.invalid_payload', 'The answer could not be applied.') };
  }
}

function judgePerson(
  request: RequestItem,
  answer: Answer,
  context: AnswerRuleContext,
): Ruling<Decided, AnswerResult<'gate'>> {
  const unbound = unboundAnswer(request, answer);
  if (unbound) return { refusal: unbound };
  const option = request.options.find((o) => o.id === answer.optionId);
  if (!option)
    return {
      refusal: refuse(
        'permissions.invalid_option',
        `Option ${answer.optionId} is not offered for call ${answer.callId}.`,
      ),
    };
  if (answer.kind !== undefined && answer.kind !== option.kind)
    return {
      refusal: refuse(
        'permissions.invalid_option',
        `Option ${option.id} is a ${option.kind} option, not ${answer.kind}.`,
      ),
    };
  const updated = editedInput(request, answer, context);
  if (updated && 'status' in updated) return { refusal: updated };
  if (answer.mode !== undefined && !context.modes.remoteChangeAllowed(answer.mode))
    return {
      refusal: refuse(
        'permissions.mode_not_allowed',
        `Mode ${answer.mode} is above the ceiling ${context.modes.ceiling}.`,
      ),
    };
  const decision: PermissionDecision = {
    ...decisionFromOption(
      option,
      answer.via,
      answer.message ?? (option.kind.startsWith('reject') ? 'Denied by the user.' : undefined),
    ),
    ...(updated ? { updatedInput: updated.value } : {}),
    ...(answer.interrupt ? { interrupt: true } : {}),
  };
  return { decision: { decision, option } };
}

/**
 * An answer from another client must name the request it answers (`requestId`, or the record id
 * as the legacy body's `id`), unless the request is its call's first: an answer for an earlier
 * request of the same call, or from before a restart, is refused. The local program answers what
 * it sees waiting, so its answers need not name one (docs/permissions.md, "Answers name their
 * request").
 */
function unboundAnswer(request: RequestItem, answer: Answer): AnswerResult<'gate'> | undefined {
  if (answer.via === 'local') return undefined;
  if (answer.requestId !== undefined) {
    if (answer.requestId === request.recordId) return undefined;
    return refuse(
      'permissions.unknown_request',
      `The answer names request ${answer.requestId.slice(0, 64)}, not the request waiting for call ${answer.callId}.`,
    );
  }
  if (request.firstForCall) return undefined;
  return refuse(
    'permissions.unknown_request',
    `Call ${answer.callId} has had more than one permission request: the answer must name the one it answers (requestId ${request.recordId}).`,
  );
}

/**
 * The person's edited arguments, merged over the request's: refused unless they are an object that
 * passes the deny rules (the policy, judging the edit as a line nobody will be asked about again,
 * must not deny it: a deny rule it cannot check denies) and the host's validation
 * (docs/permissions.md, "Edited arguments"; docs/permissions-policy.md, "Edited arguments are judged").
 */
function editedInput(
  request: RequestItem,
  answer: Answer,
  context: AnswerRuleContext,
): { value: Readonly<Record<string, unknown>> } | AnswerResult<'gate'> | undefined {
  if (answer.updatedInput === undefined) return undefined;
  const given = answer.updatedInput;
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    return refuse('permissions.invalid_updated_input', 'updatedInput must be an object.');
  let merged: Readonly<Record<string, unknown>>;
  try {
    // Copied by the bounded walk first, before anything else reads it: an edit larger or deeper
    // than a record holds is refused at once, whatever its size (docs/permissions.md, "Edited
    // arguments"). Then frozen merged: what the policy and the host check is what runs.
    const input = frozenArgs(given, 'updatedInput');
    merged = frozenArgs({ ...request.args, ...unredacted(request, input, context) }, 'updatedInput');
  } catch (error) {
    return refuse(
      'permissions.invalid_updated_input',
      isSdkError(error, 'stream.too_large')
        ? 'updatedInput is larger than a record holds.'
        : 'updatedInput must be plain JSON.',
    );
  }
  // Judged as any line under this configuration, as one nobody will be asked about again: deny
  // rules are absolute, so a line they cannot be checked on is refused.
  const verdict = context.policy.evaluate(request, merged, true);
  const unchecked =
    verdict.reason.kind === 'undecidable' &&
    verdict.reason.rules.some((r) => r.list === 'deny' || r.list === 'session-deny');
  if (verdict.verdict === 'deny' || unchecked)
    return refuse(
      'permissions.invalid_updated_input',
      `The edited input is refused: ${describePolicyResult(verdict)}`,
    );
  const check = context.validateUpdatedInput;
  if (check && !check(request.toolName, merged))
    return refuse(
      'permissions.invalid_updated_input',
      `The edited input is not valid for ${request.toolName}.`,
    );
  return { value: merged };
}

/**
 * The edited arguments with every value the person left as the request showed it (redacted) put
 * back to the real one: an edit of one field must not hand the tool a marker for another.
 */
function unredacted(
  request: RequestItem,
  input: Readonly<Record<string, unknown>>,
  context: AnswerRuleContext,
): Record<string, unknown> {
  if (request.redact === false) return { ...input };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    // Own keys only: a key named `__proto__` stays a key, as in the edit.
    const real = Object.hasOwn(request.args, key) ? request.args[key] : undefined;
    let restored = value;
    if (real !== undefined) {
      const shown = JSON.stringify(context.writer.redactValue(real));
      if (shown !== JSON.stringify(real) && JSON.stringify(value) === shown) restored = real;
    }
    Object.defineProperty(out, key, {
      value: restored,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
