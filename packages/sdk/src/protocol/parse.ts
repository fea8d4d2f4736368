import type { ProtocolErrorCode } from '../errorCodes.js';
import type { Result } from '../result.js';
import { err, ok } from '../result.js';
import type { SessionMessage } from './sessionMessage.js';
import { SESSION_MESSAGE_TYPES, SessionMessageSchema } from './sessionMessage.js';

/** Why a value is not a valid v2 message. */
export type ProtocolFailureCode = Extract<
  ProtocolErrorCode,
  'protocol.not_an_object' | 'protocol.unknown_type' | 'protocol.invalid_message'
>;

/** One field-level problem, with the path of the field. */
export interface ProtocolIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** A typed failure of {@link parseSessionMessage}. */
export interface ProtocolFailure {
  readonly code: ProtocolFailureCode;
  readonly message: string;
  /** The `type` field of the input, when it had one. */
  readonly type?: string;
  readonly issues: readonly ProtocolIssue[];
}

const knownTypes: ReadonlySet<string> = new Set(SESSION_MESSAGE_TYPES);

/**
 * Validates an untrusted value (a decrypted record, a JSON line) as a v2 message.
 * Never throws: returns the typed message or a typed failure. Unknown fields are dropped, since a
 * reader ignores fields it does not know (docs/architecture.md, "Wire format").
 */
export function parseSessionMessage(value: unknown): Result<SessionMessage, ProtocolFailure> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err({
      code: 'protocol.not_an_object',
      message: 'A v2 message must be a JSON object.',
      issues: [],
    });
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !knownTypes.has(type)) {
    return err({
      code: 'protocol.unknown_type',
      message: `Unknown v2 message type ${JSON.stringify(type)}; expected one of ${SESSION_MESSAGE_TYPES.join(', ')}.`,
      ...(typeof type === 'string' ? { type } : {}),
      issues: [{ path: ['type'], message: 'unknown type' }],
    });
  }
  const parsed = SessionMessageSchema.safeParse(value);
  if (parsed.success) return ok(parsed.data);
  const issues = parsed.error.issues.map((issue) => ({
    path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
    message: issue.message,
  }));
  return err({
    code: 'protocol.invalid_message',
    message: `Invalid ${type} message: ${issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    type,
    issues,
  });
}

/** True when `value` is a valid v2 message (a type guard over {@link parseSessionMessage}). */
export function isSessionMessage(value: unknown): value is SessionMessage {
  return parseSessionMessage(value).ok;
}
