import { SdkError } from '../../errors.js';
import { newId } from '../ids.js';
import type { SessionMessage, ToolCallEndMessage, ToolCallStartMessage } from '../sessionMessage.js';
import type { V1AcpProvider, V1Event, V1Meta, V1Record, V1SessionRecord } from './schemas.js';
import { V1RecordSchema } from './schemas.js';
import { fileEvent, textEvent, userEvent } from './events.js';
import { SubagentTracker } from './subagents.js';
import type { V1Subagent } from './subagents.js';

/** Options of {@link createV1Encoder}. */
export interface V1EncoderOptions {
  /** Id factory for the records the encoder adds (markers, tool results); default cuid2. */
  readonly createId?: () => string;
  /** `provider` of the legacy `acp` records; the app accepts only these four. Default `claude`. */
  readonly provider?: V1AcpProvider;
  /** `meta` of every record; default `{sentFrom: 'cli'}`, as the Happy CLI writes. */
  readonly meta?: V1Meta;
}

/** Turns a v2 stream into the v1 / legacy records today's Happy app renders, one message at a time. */
export interface V1Encoder {
  /**
   * The records that stand for `message`, in stream order (none, one, or several). Feed every
   * message of the stream in order: the encoder remembers open subagents and the last `time`.
   * @throws {SdkError} `protocol.v1_encode_failed` if a record would not validate (a bug here).
   */
  encode(message: SessionMessage): V1Record[];
}

/**
 * Creates the stateful v2 → v1 encoder behind `connect({format: 'v1'})` (docs/architecture.md,
 * "Compatibility with today's app"; docs/wire.md §6.3, §6.5, §7.3, §8.4, §9). `docs/v1-format.md`
 * explains each row.
 *
 * | v2 message | v1 records | lost |
 * |---|---|---|
 * | `turn-start` | `ev turn-start` | — |
 * | `turn-end` | `stop` for subagents still open in the turn, then `ev turn-end {status}` | — |
 * | `text` (agent) | `ev text`, `thinking` kept | — |
 * | `text` (user) | user envelope `ev text`, no turn | — |
 * | `service` in a turn | `ev service` | — |
 * | `service` without turn | legacy `event` `message` (status line) | subagent attribution |
 * | `tool-call-start` | `ev tool-call-start {call, name, title, description, args}` | `agentTitle` (kept as the `start` title) |
 * | `tool-call-end` | `stop` for subagents it spawned; if `error`: `acp tool-result {isError: true, output: error}`; `ev tool-call-end` (+ `output`, `isError`) | error text in older apps for calls inside a subagent |
 * | `permission-request` | nothing (the gate mirrors it into agentState) | the audit trail |
 * | `permission-response` | nothing (answers arrive by RPC) | the audit trail |
 * | `photo` | `ev file {ref, name, size: 0, image}` | size, file name |
 * | `video` | `ev file {ref, name, size, mimeType, image}` | duration, playback |
 * | `file` | `ev file {ref, name, size, mimeType}` | — (the app draws non-images as broken images) |
 * | any agent message with `agentId` | `subagent` (cuid2), `start` before its first message | `parentId` nesting within one agent |
 * | any message with only `parentId` | the same record, at the top of its turn | the nesting |
 *
 * `time` strictly increases over the session records: each takes its message's time, or one past
 * the previous record's. The legacy records carry no time (the app uses the server's).
 */
export function createV1Encoder(options: V1EncoderOptions = {}): V1Encoder {
  return new V1StreamEncoder(options);
}

/** Where an agent message sits: its turn, and its subagent and parent call, if any. */
interface Placed {
  readonly id: string;
  readonly turn: string;
  readonly agentId?: string | undefined;
  readonly parentId?: string | undefined;
}

class V1StreamEncoder implements V1Encoder {
  private readonly createId: () => string;
  private readonly provider: V1AcpProvider;
  private readonly meta: V1Meta;
  private readonly subagents: SubagentTracker;
  private lastTime = -Infinity;

  constructor(options: V1EncoderOptions) {
    this.createId = options.createId ?? newId;
    this.provider = options.provider ?? 'claude';
    this.meta = options.meta ?? { sentFrom: 'cli' };
    this.subagents = new SubagentTracker(() => this.createId());
  }

  encode(message: SessionMessage): V1Record[] {
    const records: V1Record[] = [];
    const time = (): number => this.nextTime(message.time);
    if (message.role === 'user') {
      const ev = userEvent(message);
      if (ev) records.push(this.envelope(message.id, time(), 'user', ev, {}));
      return this.checked(records, message);
    }
    switch (message.type) {
      case 'turn-start':
        records.push(this.envelope(message.id, time(), 'agent', { t: 'turn-start' }, { turn: message.turn }));
        break;
      case 'turn-end':
        for (const s of this.subagents.turnEnded(message.turn)) records.push(this.stop(s, time()));
        records.push(
          this.envelope(
            message.id,
            time(),
            'agent',
            { t: 'turn-end', status: message.status },
            { turn: message.turn },
          ),
        );
        break;
      case 'service':
        if (message.turn === undefined) {
          records.push(this.statusLine(message.id, message.text));
          break;
        }
        this.content(records, { ...message, turn: message.turn }, { t: 'service', text: message.text }, time);
        break;
      case 'text':
        this.content(records, message, textEvent(message.text, message.thinking), time);
        break;
      case 'tool-call-start':
        this.content(records, message, this.toolCallStart(message), time);
        break;
      case 'tool-call-end':
        this.toolCallEnd(records, message, time);
        break;
      case 'photo':
      case 'video':
      case 'file':
        this.content(records, message, fileEvent(message), time);
        break;
      case 'permission-request':
        break;
    }
    return this.checked(records, message);
  }

  /** An agent content record, preceded by its subagent's `start` when that opens now. */
  private content(records: V1Record[], message: Placed, ev: V1Event, time: () => number): void {
    const subagent = this.subagentOf(records, message, time);
    records.push(this.envelope(message.id, time(), 'agent', ev, { turn: message.turn, subagent }));
  }

  /** The v1 `subagent` of an agent message, pushing its `start` marker when it opens now. */
  private subagentOf(records: V1Record[], message: Placed, time: () => number): string | undefined {
    if (message.agentId === undefined) return undefined;
    const { subagent, opened, title } = this.subagents.resolve(
      message.agentId,
      message.parentId,
      message.turn,
    );
    if (opened) {
      const start: V1Event = { t: 'start', ...(title !== undefined ? { title } : {}) };
      records.push(
        this.envelope(this.createId(), time(), 'agent', start, {
          turn: message.turn,
          subagent: subagent.id,
        }),
      );
    }
    return subagent.id;
  }

  private toolCallStart(message: ToolCallStartMessage): V1Event {
    const advertised = this.subagents.callStarted(message.callId, message.turn, message.agentTitle);
    return {
      t: 'tool-call-start',
      call: message.callId,
      name: message.toolName,
      title: message.title,
      description: message.description,
      args: advertised !== undefined ? { ...message.args, sessionSubagent: advertised } : message.args,
    };
  }

  /**
   * Subagents the call spawned stop first. A failed call then gets the `acp` result that carries
   * the error: the app keeps the first result a card receives, so it goes before the v1 end, which
   * also carries the error for app versions that read `output` / `isError` there.
   */
  private toolCallEnd(records: V1Record[], message: ToolCallEndMessage, time: () => number): void {
    for (const s of this.subagents.callEnded(message.callId)) records.push(this.stop(s, time()));
    const subagent = this.subagentOf(records, message, time);
    const error = message.error;
    if (error !== undefined) records.push(this.toolResult(message.callId, error));
    const end: V1Event = {
      t: 'tool-call-end',
      call: message.callId,
      ...(error !== undefined ? { output: error, isError: true } : {}),
    };
    records.push(this.envelope(message.id, time(), 'agent', end, { turn: message.turn, subagent }));
  }

  /** Legacy records carry no `time`: the app orders them by the server's `createdAt` (docs/wire.md §5.4). */
  private toolResult(callId: string, output: string): V1Record {
    return {
      role: 'agent',
      content: {
        type: 'acp',
        provider: this.provider,
        data: { type: 'tool-result', callId, output, id: this.createId(), isError: true },
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

  private stop(subagent: V1Subagent, time: number): V1SessionRecord {
    return this.envelope(
      this.createId(),
      time,
      'agent',
      { t: 'stop' },
      {
        turn: subagent.turn,
        subagent: subagent.id,
      },
    );
  }

  private envelope(
    id: string,
    time: number,
    role: 'user' | 'agent',
    ev: V1Event,
    scope: { turn?: string; subagent?: string | undefined },
  ): V1SessionRecord {
    return {
      role: 'session',
      content: {
        id,
        time,
        role,
        ...(scope.turn !== undefined ? { turn: scope.turn } : {}),
        ...(scope.subagent !== undefined ? { subagent: scope.subagent } : {}),
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
