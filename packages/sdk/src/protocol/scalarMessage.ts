import { TurnEndStatusSchema } from './agentMessages.js';
import type { SessionMessage } from './sessionMessage.js';
import { PermissionViaSchema } from './userMessages.js';

/** The role a scalar message type has, and its fields beyond the base ones (`true`: must be there). */
interface ScalarKind {
  readonly role: 'agent' | 'user';
  readonly fields: Readonly<Record<string, boolean>>;
}

/**
 * The message types whose fields are all scalars. These are the messages a writer appends most
 * often (a turn's start and end, its texts, the end of each tool call) and the permission gate's
 * record of an answer, which it appends on the way to the tool's start (a `permission-response`
 * without `updatedInput`); every other type goes through the schema.
 */
const SCALAR_TYPES: ReadonlyMap<unknown, ScalarKind> = new Map<unknown, ScalarKind>([
  ['turn-start', { role: 'agent', fields: {} }],
  ['turn-end', { role: 'agent', fields: { status: true } }],
  ['text', { role: 'agent', fields: { text: true, thinking: false } }],
  ['tool-call-end', { role: 'agent', fields: { callId: true, error: false } }],
  ['service', { role: 'agent', fields: { text: true, seal: false } }],
  [
    'permission-response',
    { role: 'user', fields: { callId: true, optionId: true, via: false, requestId: false, seal: false } },
  ],
]);

/** The schemas' own enums, so that the two checks cannot drift apart. */
const VIAS: ReadonlySet<unknown> = new Set(PermissionViaSchema.options);
const TURN_END_STATUSES: ReadonlySet<unknown> = new Set(TurnEndStatusSchema.options);

/**
 * True when `value` is a message of one of the all-scalar types (the agent's `turn-start`,
 * `turn-end`, `text`, `tool-call-end`, `service`, and the user's `permission-response` without
 * `updatedInput`) that `parseSessionMessage` accepts and returns with the same fields and values,
 * checked field by field without the schema: a plain object with only that type's fields, each of
 * the schema's type and bounds, none of them `undefined`.
 *
 * Sound, not complete: false for anything else, valid or not, and the caller then validates with
 * the schema (whose issues name what is wrong). The writer checks its messages this way first, so
 * that a text costs a few `typeof`s instead of a parse and a copy (docs/performance.md, "Cutting
 * the client's CPU per message"); `test/protocol/scalarMessage.test.ts` holds it to the schema.
 */
export function isScalarMessage(value: object): value is SessionMessage {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const message = value as Record<string, unknown>;
  const kind = SCALAR_TYPES.get(message.type);
  if (kind === undefined) return false;
  const { fields } = kind;
  if (message.role !== kind.role || !isId(message.id) || !isTime(message.time)) return false;
  // `turn` may be left out of a service message and of a user's message only.
  const turnOptional = message.type === 'service' || kind.role === 'user';
  if (turnOptional ? !isOptionalId(message, 'turn') : !isId(message.turn)) return false;
  let required = 0;
  for (const key in message) {
    if (!Object.hasOwn(message, key)) return false;
    const field = message[key];
    switch (key) {
      case 'id':
      case 'time':
      case 'role':
      case 'type':
      case 'turn':
        continue;
      case 'parentId':
      case 'agentId':
      case 'callId':
      case 'optionId':
      case 'requestId':
        if (!isId(field)) return false;
        break;
      case 'via':
        if (!VIAS.has(field)) return false;
        break;
      case 'text':
      case 'error':
      case 'seal':
        if (typeof field !== 'string') return false;
        break;
      case 'thinking':
        if (typeof field !== 'boolean') return false;
        break;
      case 'status':
        if (!TURN_END_STATUSES.has(field)) return false;
        break;
      default:
        return false;
    }
    if (key === 'parentId' || key === 'agentId') continue;
    const mustBe = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (mustBe === undefined) return false;
    if (mustBe) required++;
  }
  for (const key in fields) if (fields[key]) required--;
  return required === 0;
}

/** A non-empty string: the schema's ids (`id`, `turn`, `callId`, `parentId`, `agentId`). */
function isId(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

/** Absent, or an id; a key present with `undefined` is left to the schema. */
function isOptionalId(message: Record<string, unknown>, key: string): boolean {
  return !Object.hasOwn(message, key) || isId(message[key]);
}

/** The schema's `time`: a non-negative safe integer. */
function isTime(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
