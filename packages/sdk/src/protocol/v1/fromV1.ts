import { parseSessionMessage } from '../parse.js';
import type { ProtocolIssue } from '../parse.js';
import type { SessionMessage } from '../sessionMessage.js';
import { parseV1SessionRecord } from './parse.js';
import type { V1ParseFailure } from './parse.js';
import type { V1Envelope } from './schemas.js';
import { V1AcpToolResultRecordSchema, V1EventMessageRecordSchema } from './schemas.js';
import { entriesOfTodos } from './plan.js';

/**
 * A v2 field that a v1 record cannot carry, so that a message read from v1 may lack it
 * (docs/v1-format.md, "Reading v1 back"):
 *
 * - `parentId`, `agentId`: v1 output is flat (the encoder writes no `subagent`);
 * - `agentTitle`: the subagent's title lives only in its calls' labels;
 * - `description`: a call's `description` holds the label today's app shows, not the v2 description;
 * - `time`: a legacy status line has none; the server's time stands in.
 */
export type LostField = 'parentId' | 'agentId' | 'agentTitle' | 'description' | 'time';

/** Where a record sits in the stream, for the fields a legacy record does not carry. */
export interface V1RecordPosition {
  readonly seq: number;
  readonly localId: string | null;
  /** The server's time of the record; legacy records have no time of their own. */
  readonly createdAt?: number;
}

/**
 * What {@link decodeV1Record} made of a record: the v2 message, a record with no v2 equivalent
 * (`skipped`: a subagent marker, an invisible legacy event), or the reason it is not valid.
 */
export type V1Decoded =
  | { readonly kind: 'message'; readonly message: SessionMessage; readonly lost: readonly LostField[] }
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'error'; readonly failure: V1ParseFailure };

const NESTING: readonly LostField[] = ['parentId', 'agentId'];
const NOTHING: readonly LostField[] = [];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a decrypted record in a v1 or legacy form (a `content` object, no v2 `type`). */
export function isV1Record(value: unknown): boolean {
  return isObject(value) && isObject(value.content) && !('type' in value);
}

/**
 * Reads a decrypted v1 or legacy record back as the v2 message it stands for (docs/v1-format.md,
 * "Reading v1 back"): the session records the v1 encoder and the Happy CLI write, the encoder's
 * legacy `acp` result and status line, and the user text today's app sends. `lost` names what v1
 * could not keep. Returns `undefined` for a legacy record this reader does not know (a Claude
 * `output` line, say). Never throws.
 */
export function decodeV1Record(value: unknown, position: V1RecordPosition): V1Decoded | undefined {
  if (!isObject(value) || !isObject(value.content)) return undefined;
  if (value.role === 'session') {
    const read = parseV1SessionRecord(value);
    if (!read.ok) return { kind: 'error', failure: read.error };
    return fromEnvelope(read.value.envelope);
  }
  if (value.role === 'user') return legacyUserText(value, position);
  if (value.role !== 'agent') return undefined;
  const result = V1AcpToolResultRecordSchema.safeParse(value);
  if (result.success) {
    const { callId, output, id, isError, turn, time, plan } = result.data.content.data;
    if (plan === true) return { kind: 'skipped', reason: `the result of plan ${callId}'s checklist` };
    if (turn === undefined) {
      return { kind: 'skipped', reason: `a tool result for call ${callId} that does not say its turn` };
    }
    return checked(
      {
        id,
        time: time ?? position.createdAt ?? 0,
        role: 'agent',
        type: 'tool-call-end',
        turn,
        callId,
        ...(isError === true ? { error: typeof output === 'string' ? output : JSON.stringify(output) } : {}),
      },
      time === undefined ? [...NESTING, 'time'] : NESTING,
    );
  }
  const status = V1EventMessageRecordSchema.safeParse(value);
  if (status.success) {
    const { id, data } = status.data.content;
    return checked(
      { id, time: position.createdAt ?? 0, role: 'agent', type: 'service', text: data.message },
      ['time'],
    );
  }
  if (value.content.type === 'event')
    return { kind: 'skipped', reason: 'a legacy event with no v2 equivalent' };
  return undefined;
}

/**
 * The user text today's app sends (docs/wire.md §6.1) as a v2 user `text`: `id` is the record's
 * `localId` (the app's dedupe key), `time` the server's. Undefined for anything else.
 */
export function legacyUserText(
  value: Record<string, unknown>,
  position: V1RecordPosition & { readonly id?: string },
): V1Decoded | undefined {
  const { content } = value;
  if (value.role !== 'user' || !isObject(content) || content.type !== 'text') return undefined;
  if (typeof content.text !== 'string') return undefined;
  const id = position.localId ?? position.id ?? `seq-${position.seq}`;
  return checked(
    { id, time: position.createdAt ?? 0, role: 'user', type: 'text', text: content.text },
    NOTHING,
  );
}

function fromEnvelope(envelope: V1Envelope): V1Decoded {
  const { id, time, ev } = envelope;
  if (envelope.role === 'user') {
    if (ev.t === 'text') {
      if (ev.media) return checked({ id, time, role: 'user', ...ev.media }, NOTHING);
      return checked({ id, time, role: 'user', type: 'text', text: ev.text }, NOTHING);
    }
    if (ev.t === 'file') return checked({ id, time, role: 'user', ...fileMedia(ev) }, NOTHING);
    return { kind: 'skipped', reason: `a user ${ev.t} event, which v2 has no user message for` };
  }
  const turn = envelope.turn;
  if (turn === undefined) return { kind: 'skipped', reason: 'an agent record without turn (a usage report)' };
  const base = {
    id,
    time,
    role: 'agent' as const,
    turn,
    ...(envelope.subagent !== undefined ? { agentId: envelope.subagent } : {}),
  };
  const lost: readonly LostField[] = envelope.subagent !== undefined ? ['parentId'] : NESTING;
  switch (ev.t) {
    case 'turn-start':
      return checked({ ...base, type: 'turn-start' }, NOTHING);
    case 'turn-end':
      return checked({ ...base, type: 'turn-end', status: ev.status }, NOTHING);
    case 'text':
      if (ev.media) return checked({ ...base, ...ev.media }, lost);
      return checked(
        {
          ...base,
          type: 'text',
          text: ev.text,
          ...(ev.thinking !== undefined ? { thinking: ev.thinking } : {}),
        },
        lost,
      );
    case 'service':
      return checked({ ...base, type: 'service', text: ev.text }, lost);
    case 'tool-call-start': {
      const entries = ev.plan === true ? entriesOfTodos(ev.args) : undefined;
      if (entries) return checked({ ...base, type: 'plan', entries }, lost);
      return checked(
        {
          ...base,
          type: 'tool-call-start',
          callId: ev.call,
          toolName: ev.name || 'unknown',
          title: ev.title,
          description: ev.description,
          args: ev.args,
        },
        [...lost, 'agentTitle', 'description'],
      );
    }
    case 'tool-call-end':
      if (ev.plan === true) return { kind: 'skipped', reason: `the end of plan ${ev.call}'s checklist` };
      return checked(
        {
          ...base,
          type: 'tool-call-end',
          callId: ev.call,
          ...(ev.isError === true ? { error: ev.output ?? 'failed' } : {}),
        },
        lost,
      );
    case 'file':
      return checked({ ...base, ...fileMedia(ev) }, lost);
    case 'start':
    case 'stop':
      return { kind: 'skipped', reason: `a subagent ${ev.t} marker, which v2 has no message for` };
  }
}

/** A `file` event as the v2 attachment: the video it is the poster of, a photo, or a plain file. */
function fileMedia(ev: Extract<V1Envelope['ev'], { t: 'file' }>): Record<string, unknown> {
  if (ev.media) return ev.media;
  if (ev.image) {
    const { width, height, thumbhash } = ev.image;
    return { type: 'photo', ref: ev.ref, thumbhash, width, height };
  }
  return {
    type: 'file',
    ref: ev.ref,
    name: ev.name,
    size: ev.size,
    mimeType: ev.mimeType ?? 'application/octet-stream',
  };
}

/** The message if it validates as v2, else the failure (a v1 record v2 cannot hold). */
function checked(candidate: Record<string, unknown>, lost: readonly LostField[]): V1Decoded {
  const parsed = parseSessionMessage(candidate);
  if (parsed.ok) return { kind: 'message', message: parsed.value, lost };
  const issues: readonly ProtocolIssue[] = parsed.error.issues;
  return {
    kind: 'error',
    failure: {
      code: 'protocol.v1_invalid',
      message: `The v1 record does not make a valid v2 message: ${parsed.error.message}`,
      issues,
    },
  };
}
