/**
 * The legacy user text record today's Happy app writes for a prompt (docs/wire.md §6.1):
 * `{role: 'user', content: {type: 'text', text}, meta}`. Happy's agents (its CLI, happy-agent)
 * read user input only in this form; readers read it back as a v2 user `text` (`legacyUserText`
 * in `protocol/v1/fromV1.ts`).
 */
export interface LegacyUserTextRecord {
  readonly role: 'user';
  readonly content: { readonly type: 'text'; readonly text: string };
  readonly meta: Readonly<Record<string, unknown>>;
}

/** The record that sends `text` as the app does; `meta.sentFrom` defaults to `happy-session`. */
export function legacyUserTextRecord(
  text: string,
  meta: Readonly<Record<string, unknown>> = {},
): LegacyUserTextRecord {
  return { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'happy-session', ...meta } };
}
