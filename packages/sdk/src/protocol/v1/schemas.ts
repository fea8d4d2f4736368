import * as z from '../../zod.js';
import { fileShape, photoShape, videoShape } from '../media.js';

/**
 * The records today's Happy app renders (docs/wire.md §6.2, §6.3): session protocol "v1"
 * (`role: 'session'`) plus the two legacy agent records the v1 encoder needs. These schemas are
 * the definition of what `format: 'v1'` writes; they are not a copy of the app's, and they are
 * non-strict like the app's (unknown fields are ignored by readers).
 */

/**
 * The v2 attachment a record stands for, kept in a field the app ignores (its schemas drop unknown
 * fields) so that a reader gets the attachment back: the `text` line of a file, the poster `file` of
 * a video (docs/v1-format.md, "Media").
 */
export const V1MediaSchema = z.discriminatedUnion('type', [
  z.object(photoShape),
  z.object(videoShape),
  z.object(fileShape),
]);

/** `text`: agent markdown, or a thinking block when `thinking` is true; from the user, a bubble. */
export const V1TextEventSchema = z.object({
  t: z.literal('text'),
  text: z.string(),
  thinking: z.optional(z.boolean()),
  /** Not read by the app: the attachment this line describes. */
  media: z.optional(V1MediaSchema),
});

/** `service`: agent-only status text, shown as a normal agent text row. */
export const V1ServiceEventSchema = z.object({ t: z.literal('service'), text: z.string() });

/** `tool-call-start`: a tool card; `name` picks the app's renderer, `args` is its input. */
export const V1ToolCallStartEventSchema = z.object({
  t: z.literal('tool-call-start'),
  call: z.string().check(z.minLength(1)),
  name: z.string(),
  title: z.string(),
  description: z.string(),
  args: z.record(z.string(), z.unknown()),
  /** Not read by the app: this `TodoWrite` card stands for a v2 `plan` (docs/v1-format.md, "Plans"). */
  plan: z.optional(z.literal(true)),
});

/**
 * `tool-call-end`: marks the card completed with an empty result. Some versions of the app and of
 * the Happy monorepo's wire package read `output` / `isError` here, others drop them, so the encoder
 * never writes them: a failed call ends with a legacy `acp` `tool-result` instead
 * (docs/v1-format.md, "Results").
 */
export const V1ToolCallEndEventSchema = z.object({
  t: z.literal('tool-call-end'),
  call: z.string().check(z.minLength(1)),
  output: z.optional(z.string()),
  isError: z.optional(z.boolean()),
  /** Not read by the app: the end of a plan's `TodoWrite` card, which stands for nothing in v2. */
  plan: z.optional(z.literal(true)),
});

/** Image geometry of a `file` event; the wire package of the Happy monorepo requires the thumbhash when `image` is present. */
export const V1ImageSchema = z.object({
  width: z.number(),
  height: z.number(),
  thumbhash: z.string(),
});

/** `file`: an uploaded blob, rendered as a completed tool call named `file` (docs/wire.md §8.4). */
export const V1FileEventSchema = z.object({
  t: z.literal('file'),
  ref: z.string().check(z.minLength(1)),
  name: z.string(),
  size: z.number(),
  /** Not in the app's schema (dropped there); the Happy wire package and CLI read it. */
  mimeType: z.optional(z.string()),
  image: z.optional(V1ImageSchema),
  /** Not read by the app: the video whose poster this image is. */
  media: z.optional(V1MediaSchema),
});

/** `turn-start`: opens a turn; invisible; sets thinking. */
export const V1TurnStartEventSchema = z.object({ t: z.literal('turn-start') });

/** `turn-end`: closes a turn; the app turns it into an invisible `ready` event. */
export const V1TurnEndEventSchema = z.object({
  t: z.literal('turn-end'),
  status: z.enum(['completed', 'failed', 'cancelled']),
});

/** `start`: opens a sub-agent's output (lifecycle marker, not rendered). */
export const V1StartEventSchema = z.object({ t: z.literal('start'), title: z.optional(z.string()) });

/** `stop`: closes a sub-agent's output (lifecycle marker, not rendered). */
export const V1StopEventSchema = z.object({ t: z.literal('stop') });

/** The nine v1 event kinds, on `t` (docs/wire.md §6.3). */
export const V1EventSchema = z.discriminatedUnion('t', [
  V1TextEventSchema,
  V1ServiceEventSchema,
  V1ToolCallStartEventSchema,
  V1ToolCallEndEventSchema,
  V1FileEventSchema,
  V1TurnStartEventSchema,
  V1TurnEndEventSchema,
  V1StartEventSchema,
  V1StopEventSchema,
]);

/** Token usage on an envelope: feeds the app's context meter, never rendered (docs/wire.md §9 item 3). */
export const V1UsageSchema = z.object({
  input_tokens: z.int().check(z.nonnegative()),
  output_tokens: z.int().check(z.nonnegative()),
  cache_creation_input_tokens: z.optional(z.int().check(z.nonnegative())),
  cache_read_input_tokens: z.optional(z.int().check(z.nonnegative())),
  context_window: z.optional(z.int().check(z.positive())),
  service_tier: z.optional(z.string()),
});

/** What the app accepts as a `subagent` id; anything else makes it reject the whole record. */
const SUBAGENT_PATTERN = /^[0-9a-z]{2,32}$/;

const AGENT_ONLY_EVENTS: ReadonlySet<string> = new Set(['service', 'start', 'stop']);

/**
 * The v1 envelope (docs/wire.md §6.3). Beyond the field shapes it enforces the two rules the app
 * applies: `service`, `start` and `stop` come from the agent; every agent envelope carries `turn`
 * (the app drops it otherwise), except a usage-only `service` with empty text.
 */
export const V1EnvelopeSchema = z
  .object({
    /** Unique per record; the app dedupes rows on it. */
    id: z.string().check(z.minLength(1)),
    /** Unix ms; the app's display time and order. */
    time: z.number(),
    role: z.enum(['user', 'agent']),
    turn: z.optional(z.string().check(z.minLength(1))),
    /** Groups a sub-agent's output; the app refuses anything but 2 to 32 lower-case letters and digits. */
    subagent: z.optional(
      z
        .string()
        .check(
          z.regex(SUBAGENT_PATTERN, { message: 'subagent must be 2 to 32 lower-case letters and digits' }),
        ),
    ),
    claudeUuid: z.optional(z.string().check(z.minLength(1))),
    codexItemId: z.optional(z.string().check(z.minLength(1))),
    usage: z.optional(V1UsageSchema),
    ev: V1EventSchema,
  })
  .check(
    z.superRefine((envelope, ctx) => {
      if (AGENT_ONLY_EVENTS.has(envelope.ev.t) && envelope.role !== 'agent') {
        ctx.addIssue({
          code: 'custom',
          message: `${envelope.ev.t} events must use role "agent"`,
          path: ['role'],
        });
      }
      const usageOnly =
        envelope.ev.t === 'service' && envelope.ev.text === '' && envelope.usage !== undefined;
      if (envelope.role === 'agent' && envelope.turn === undefined && !usageOnly) {
        ctx.addIssue({
          code: 'custom',
          message: 'agent envelopes must carry turn (the app drops them otherwise)',
          path: ['turn'],
        });
      }
    }),
  );

/** Record `meta`: `sentFrom` and whatever else the writer puts there (docs/wire.md §6.1). */
export const V1MetaSchema = z.looseObject({ sentFrom: z.optional(z.string()) });

/** A v1 record as the CLI writes it: the envelope directly in `content`. */
export const V1SessionRecordSchema = z.object({
  role: z.literal('session'),
  content: V1EnvelopeSchema,
  meta: z.optional(V1MetaSchema),
});

/** A v1 record in the wrapped form the app itself writes, `content: {type:'session', data}`. */
export const V1WrappedSessionRecordSchema = z.object({
  role: z.literal('session'),
  content: z.object({ type: z.literal('session'), data: V1EnvelopeSchema }),
  meta: z.optional(V1MetaSchema),
});

/** The providers the app's `acp` schema accepts; any other value fails parsing (docs/wire.md §6.2). */
export const V1AcpProviderSchema = z.enum(['claude', 'codex', 'gemini', 'opencode']);

/**
 * Legacy `acp` `tool-result`: the only path that puts output with an error flag on a tool's own
 * result (docs/wire.md §6.2 item 3). The app matches `callId` to the tool card's `call`. `turn` and
 * `time` are not read by the app: they let a reader turn the record back into a v2 `tool-call-end`.
 */
export const V1AcpToolResultRecordSchema = z.object({
  role: z.literal('agent'),
  content: z.object({
    type: z.literal('acp'),
    provider: V1AcpProviderSchema,
    data: z.object({
      type: z.literal('tool-result'),
      callId: z.string().check(z.minLength(1)),
      output: z.unknown(),
      id: z.string().check(z.minLength(1)),
      isError: z.optional(z.boolean()),
      turn: z.optional(z.string().check(z.minLength(1))),
      time: z.optional(z.number()),
      /** Not read by the app: the result of a plan's `TodoWrite` card, which stands for nothing in v2. */
      plan: z.optional(z.literal(true)),
    }),
  }),
  meta: z.optional(V1MetaSchema),
});

/**
 * Legacy `event` `message`: a centered status line that needs no turn (docs/wire.md §6.2 item 4).
 * The app treats the texts `Turn started` (hidden) and `Context was reset` (resets todos and usage)
 * specially.
 */
export const V1EventMessageRecordSchema = z.object({
  role: z.literal('agent'),
  content: z.object({
    type: z.literal('event'),
    id: z.string().check(z.minLength(1)),
    data: z.object({ type: z.literal('message'), message: z.string() }),
  }),
  meta: z.optional(V1MetaSchema),
});

/** Every record the v1 encoder writes. */
export const V1RecordSchema = z.union([
  V1SessionRecordSchema,
  V1AcpToolResultRecordSchema,
  V1EventMessageRecordSchema,
]);

/** The v2 attachment kept on a v1 record for readers. */
export type V1Media = z.output<typeof V1MediaSchema>;
/** One v1 event (`ev`). */
export type V1Event = z.output<typeof V1EventSchema>;
/** The nine values of `ev.t`. */
export type V1EventKind = V1Event['t'];
/** A v1 envelope: `{id, time, role, turn?, subagent?, usage?, ev}`. */
export type V1Envelope = z.output<typeof V1EnvelopeSchema>;
/** Token usage on an envelope. */
export type V1Usage = z.output<typeof V1UsageSchema>;
/** A record's `meta`. */
export type V1Meta = z.output<typeof V1MetaSchema>;
/** `{role: 'session', content: envelope, meta?}`. */
export type V1SessionRecord = z.output<typeof V1SessionRecordSchema>;
/** `{role: 'session', content: {type: 'session', data: envelope}, meta?}`. */
export type V1WrappedSessionRecord = z.output<typeof V1WrappedSessionRecordSchema>;
/** The `provider` of a legacy `acp` record. */
export type V1AcpProvider = z.output<typeof V1AcpProviderSchema>;
/** A legacy `acp` `tool-result` record. */
export type V1AcpToolResultRecord = z.output<typeof V1AcpToolResultRecordSchema>;
/** A legacy `event` `message` record (a status line). */
export type V1EventMessageRecord = z.output<typeof V1EventMessageRecordSchema>;
/** Any record the v1 encoder writes. */
export type V1Record = z.output<typeof V1RecordSchema>;
