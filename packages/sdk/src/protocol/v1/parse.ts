import type { ProtocolErrorCode } from '../../errorCodes.js';
import type * as z from '../../zod.js';
import type { Result } from '../../result.js';
import { err, ok } from '../../result.js';
import type { ProtocolIssue } from '../parse.js';
import type { V1Envelope, V1Meta } from './schemas.js';
import { V1SessionRecordSchema, V1WrappedSessionRecordSchema } from './schemas.js';

/** Why a value is not a v1 session record. */
export interface V1ParseFailure {
  readonly code: Extract<ProtocolErrorCode, 'protocol.v1_not_session' | 'protocol.v1_invalid'>;
  readonly message: string;
  readonly issues: readonly ProtocolIssue[];
}

/** A v1 session record, read from either of its two forms. */
export interface V1SessionEnvelopeRead {
  readonly envelope: V1Envelope;
  /** `direct`: envelope in `content` (the CLI's form); `wrapped`: `content: {type:'session', data}`. */
  readonly form: 'direct' | 'wrapped';
  readonly meta: V1Meta | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function issuesOf(error: z.core.$ZodError): ProtocolIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
    message: issue.message,
  }));
}

/**
 * Reads a decrypted record as a v1 session record (docs/wire.md §6.3), accepting both the direct
 * form the CLI writes and the wrapped form the app writes. Never throws.
 */
export function parseV1SessionRecord(value: unknown): Result<V1SessionEnvelopeRead, V1ParseFailure> {
  if (!isObject(value) || value.role !== 'session' || !isObject(value.content)) {
    return err({
      code: 'protocol.v1_not_session',
      message: 'Not a v1 session record: expected {role: "session", content: {...}}.',
      issues: [],
    });
  }
  const wrapped = value.content.type === 'session';
  const parsed = wrapped
    ? V1WrappedSessionRecordSchema.safeParse(value)
    : V1SessionRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    return err({
      code: 'protocol.v1_invalid',
      message: `Invalid v1 session record: ${issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      issues,
    });
  }
  const data = parsed.data;
  const envelope = 'data' in data.content ? data.content.data : data.content;
  return ok({ envelope, form: wrapped ? 'wrapped' : 'direct', meta: data.meta });
}
