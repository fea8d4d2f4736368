import { SdkError } from '../../errors.js';
import { NO_CONTEXT } from '../messageContext.js';
import type { MessageContext } from '../messageContext.js';
import type { PlanMessage, SessionMessage, ToolCallEndMessage } from '../sessionMessage.js';
import type { V1AcpProvider, V1Event, V1Meta, V1Record, V1SessionRecord } from './schemas.js';
import { V1RecordSchema } from './schemas.js';
import { CallLabels } from './labels.js';
import { mediaEvent, UnnamedMedia } from './media.js';
import { planSummary, TODO_WRITE_TOOL, todosOf } from './plan.js';
import type { V1Todo } from './plan.js';

/** Options of {@link createV1Encoder}. */
export interface V1EncoderOptions {
  /** `provider` of the legacy `acp` records; the app accepts only these four. Default `claude`. */
  readonly provider?: V1AcpProvider;
  /** `meta` of every record; default `{sentFrom: 'cli'}`, as the Happy CLI writes. */
  readonly meta?: V1Meta;
}

/** Turns a v2 stream into the v1 / legacy records today's Happy app renders, one message at a time. */
export interface V1Encoder {
  /**
   * The records that stand for `message`, in stream order (none or one). Feed every message of the
   * stream in order: the encoder remembers the calls of open turns (for their labels) and the last
   * `time`. `context` is what the writer was told beyond the message (an attachment's file name
   * and poster).
   * @throws {SdkError} `protocol.v1_encode_failed` if a record would not validate (a bug here).
   */
  encode(message: SessionMessage, context?: MessageContext): V1Record[];
}

/**
 * Creates the stateful v2 → v1 encoder behind `connect({format: 'v1'})` (docs/architecture.md,
 * "Compatibility with today's app"; docs/v1-format.md explains each row and why).
 *
 * | v2 message | v1 record | lost in today's app |
 * |---|---|---|
 * | `turn-start` / `turn-end` | `ev turn-start` / `ev turn-end {status}` | — |
 * | `text` (agent) | `ev text`, `thinking` kept | its nesting |
 * | `text` (user) | user envelope `ev text`, no turn | — |
 * | `service` in a turn / without | `ev service` / legacy `event` status line | — |
 * | `tool-call-start` | `ev tool-call-start`, `description` = the label (`deploy › build › compile`) | `description`, nesting |
 * | `tool-call-end` | `ev tool-call-end`; with `error`: legacy `acp` `tool-result {isError: true}` instead | — |
 * | `permission-request` / `-response` | nothing (the gate mirrors them into agentState); a previewed request: `ev service` with its description (the preview's summary) | the audit trail |
 * | `question` / `question-end` / `question-answer` | nothing (the question desk mirrors them into agentState's forms) | the audit trail |
 * | `prompt-taken` | nothing (the agent keeps its mark in agentState too, docs/recovery.md) | "seen" |
 * | `photo` | `ev file` captioned with its file name | — |
 * | `video` | `ev file` of its uploaded poster, captioned `▶ name · 0:45`; without a poster a text line | playback |
 * | `file` | a text line `📎 name · type · size` | opening it from the app |
 * | `plan` | a `TodoWrite` card and, for the main agent, its result `{oldTodos, newTodos}` (the session's todo list) | — |
 *
 * No record carries `subagent`: every message sits at the top of its turn, and a call's label says
 * where it belongs. `time` strictly increases over the records: each takes its message's time, or
 * one past the previous record's.
 */
export function createV1Encoder(options: V1EncoderOptions = {}): V1Encoder {
  return new V1StreamEncoder(options);
}

class V1StreamEncoder implements V1Encoder {
  private readonly provider: V1AcpProvider;
  private readonly meta: V1Meta;
  private readonly labels = new CallLabels();
  private readonly unnamed = new UnnamedMedia();
  /** The main agent's latest plan, the `oldTodos` of its next one. */
  private todos: readonly V1Todo[] = [];
  private lastTime = -Infinity;

  constructor(options: V1EncoderOptions) {
    this.provider = options.provider ?? 'claude';
    this.meta = options.meta ?? { sentFrom: 'cli' };
  }

  encode(message: SessionMessage, context: MessageContext = NO_CONTEXT): V1Record[] {
    return this.checked(this.recordsOf(message, context), message);
  }

  private recordsOf(message: SessionMessage, context: MessageContext): V1Record[] {
    if (message.role === 'user') {
      switch (message.type) {
        case 'text':
          return [this.envelope(message, 'user', { t: 'text', text: message.text })];
        case 'photo':
        case 'video':
        case 'file':
          return [this.envelope(message, 'user', mediaEvent(message, context.attachment, this.unnamed))];
        case 'permission-response':
          return [];
      }
    }
    switch (message.type) {
      case 'turn-start':
        return [this.envelope(message, { turn: message.turn }, { t: 'turn-start' })];
      case 'turn-end':
        this.labels.turnEnded(message.turn);
        return [this.envelope(message, { turn: message.turn }, { t: 'turn-end', status: message.status })];
      case 'service':
        if (message.turn === undefined) return [this.statusLine(message.id, message.text)];
        return [this.envelope(message, { turn: message.turn }, { t: 'service', text: message.text })];
      case 'text':
        return [
          this.envelope(
            message,
            { turn: message.turn },
            {
              t: 'text',
              text: message.text,
              ...(message.thinking !== undefined ? { thinking: message.thinking } : {}),
            },
          ),
        ];
      case 'tool-call-start':
        return [
          this.envelope(
            message,
            { turn: message.turn },
            {
              t: 'tool-call-start',
              call: message.callId,
              name: message.toolName,
              title: message.title,
              description: this.labels.started(message),
              args: message.args,
            },
          ),
        ];
      case 'tool-call-end':
        return [
          message.error === undefined ? this.toolCallEnd(message) : this.toolResult(message, message.error),
        ];
      case 'photo':
      case 'video':
      case 'file':
        return [
          this.envelope(
            message,
            { turn: message.turn },
            mediaEvent(message, context.attachment, this.unnamed),
          ),
        ];
      case 'permission-request':
        // The app shows its prompt from agentState, which has no room for text; a preview's
        // summary (the request's description) goes in the turn as a line the app shows.
        if (message.preview === undefined || message.description === undefined) return [];
        return [this.envelope(message, { turn: message.turn }, { t: 'service', text: message.description })];
      case 'question':
      case 'question-end':
      case 'question-answer':
      case 'prompt-taken':
        return [];
      case 'plan':
        return this.planRecords(message);
    }
  }

  /**
   * A plan as the `TodoWrite` card the app draws as a checklist (docs/v1-format.md, "Plans"). The
   * main agent's card ends with the result whose `newTodos` the app takes as the session's todo
   * list; a subagent's ends without one, so it does not replace the main agent's list.
   */
  private planRecords(message: PlanMessage): V1Record[] {
    const todos = todosOf(message.entries);
    const start = this.envelope(
      message,
      { turn: message.turn },
      {
        t: 'tool-call-start',
        call: message.id,
        name: TODO_WRITE_TOOL,
        title: 'Plan',
        description: planSummary(message),
        args: { todos },
        plan: true,
      },
    );
    if (message.agentId !== undefined) {
      const end = this.envelope(
        { ...message, id: `${message.id}:end` },
        { turn: message.turn },
        { t: 'tool-call-end', call: message.id, plan: true },
      );
      return [start, end];
    }
    const oldTodos = this.todos;
    this.todos = todos;
    const result: V1Record = {
      role: 'agent',
      content: {
        type: 'acp',
        provider: this.provider,
        data: {
          type: 'tool-result',
          callId: message.id,
          output: { oldTodos, newTodos: todos },
          id: `${message.id}:result`,
          isError: false,
          turn: message.turn,
          time: this.nextTime(message.time),
          plan: true,
        },
      },
      meta: this.meta,
    };
    return [start, result];
  }

  private toolCallEnd(message: ToolCallEndMessage): V1Record {
    return this.envelope(message, { turn: message.turn }, { t: 'tool-call-end', call: message.callId });
  }

  /**
   * A failed call ends with the legacy `acp` result instead of `tool-call-end`: it is the one record
   * that puts the error on the call's own result, and the app wants exactly one final record per
   * call (docs/v1-format.md, "Results"). Its `id` is the message's; `turn` and `time` are for readers
   * (the app orders legacy records by the server's time, docs/wire.md §5.4).
   */
  private toolResult(message: ToolCallEndMessage, error: string): V1Record {
    return {
      role: 'agent',
      content: {
        type: 'acp',
        provider: this.provider,
        data: {
          type: 'tool-result',
          callId: message.callId,
          output: error,
          id: message.id,
          isError: true,
          turn: message.turn,
          time: this.nextTime(message.time),
        },
      },
      meta: this.meta,
    };
  }

  private statusLine(id: string, text: string): V1Record {
    return {
      role: 'agent',
      content: { type: 'event', id, data: { type: 'message', message: text } },
      meta: this.meta,
    };
  }

  /** The session record of `message`: role `user`, or role `agent` in its turn. */
  private envelope(message: SessionMessage, scope: { turn: string } | 'user', ev: V1Event): V1SessionRecord {
    return {
      role: 'session',
      content: {
        id: message.id,
        time: this.nextTime(message.time),
        ...(scope === 'user' ? { role: 'user' as const } : { role: 'agent' as const, turn: scope.turn }),
        ev,
      },
      meta: this.meta,
    };
  }

  private nextTime(time: number): number {
    this.lastTime = time > this.lastTime ? time : this.lastTime + 1;
    return this.lastTime;
  }

  private checked(records: V1Record[], message: SessionMessage): V1Record[] {
    for (const record of records) {
      const parsed = V1RecordSchema.safeParse(record);
      if (!parsed.success) {
        throw new SdkError(
          'protocol.v1_encode_failed',
          `The v1 record for ${message.type} message ${message.id} does not validate: ${parsed.error.message}`,
          { hint: 'this is a bug in the v1 encoder; please report it with the message' },
        );
      }
    }
    return records;
  }
}
