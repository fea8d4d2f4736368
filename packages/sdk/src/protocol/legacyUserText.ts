import type { UserTextMessage } from './sessionMessage.js';
import { parseSessionMessage } from './parse.js';

/**
 * The legacy user text record today's Happy app writes for a prompt (docs/wire.md §6.1):
 * `{role: 'user', content: {type: 'text', text}, meta}`. Happy's agents (its CLI, happy-agent)
 * read user input only in this form, and the SDK's agent side normalises it to a v2 `text`.
 */
export interface LegacyUserTextRecord {
  readonly role: 'user';
  readonly content: { readonly type: 'text'; readonly text: string };
  readonly meta: Readonly<Record<string, unknown>>;
}

/** A legacy user text, normalised, with the record's `meta`. */
export interface NormalisedUserText {
  readonly message: UserTextMessage;
  /** `sentFrom`, `permissionMode`, `model`, `effort`, … (docs/wire.md §6.1). */
  readonly meta: Readonly<Record<string, unknown>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record that sends `text` as the app does; `meta.sentFrom` defaults to `happy-session`. */
export function legacyUserTextRecord(
  text: string,
  meta: Readonly<Record<string, unknown>> = {},
): LegacyUserTextRecord {
  return { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'happy-session', ...meta } };
}

/**
 * Reads a decrypted record as the app's legacy user text, normalised to a v2 user `text` with the
 * given `id` (the record's `localId`, the app's dedupe key, docs/wire.md §9 item 11) and `time`
 * (the server's `createdAt`); null for anything else.
 */
export function fromLegacyUserText(
  value: unknown,
  stamp: { readonly id: string; readonly time: number },
): NormalisedUserText | null {
  if (!isObject(value) || value.role !== 'user' || !isObject(value.content)) return null;
  const { content } = value;
  if (content.type !== 'text' || typeof content.text !== 'string') return null;
  const parsed = parseSessionMessage({ role: 'user', type: 'text', text: content.text, ...stamp });
  if (!parsed.ok || parsed.value.role !== 'user' || parsed.value.type !== 'text') return null;
  return { message: parsed.value, meta: isObject(value.meta) ? value.meta : {} };
}
