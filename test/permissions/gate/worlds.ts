import { afterEach, describe } from 'vitest';
import { Observable, Subject, filter, map, takeUntil, tap } from 'rxjs';
import { generateDataKey } from 'happy-session/crypto';
import type { RecordKey } from 'happy-session/crypto';
import { PermissionGate } from 'happy-session/permissions';
import type { PermissionGateOptions } from 'happy-session/permissions';
import type { SessionMessage } from 'happy-session';
import { SessionReader, SessionWriter, MemoryTransport } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { MemoryRpc, MemorySessionState } from 'happy-session/ports';
import type { StateObject } from 'happy-session/ports';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { until } from '../../helpers/until.js';

type GateConfig = Omit<PermissionGateOptions, 'writer' | 'rpc' | 'incoming' | 'state' | 'push' | 'history'>;

/** Fields of a `permission-response` another client may write besides the answer. */
export interface StreamAnswerExtra {
  readonly via?: 'stream' | 'rpc' | 'local';
  readonly updatedInput?: Record<string, unknown>;
  readonly requestId?: string;
  readonly seal?: string;
}

/** Lets the gate's stream input through, or holds it back (in order) while closed. */
class Valve {
  private held: Array<() => void> | undefined;

  pipe<T>(source: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) =>
      source.subscribe({
        next: (value) => (this.held ? this.held.push(() => subscriber.next(value)) : subscriber.next(value)),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
  }

  hold(): () => void {
    this.held ??= [];
    return () => {
      const held = this.held ?? [];
      this.held = undefined;
      for (const release of held) release();
    };
  }
}

/** The app's answers the gate has read, to wait for (the stream channel is asynchronous). */
class Sightings {
  private readonly sent = new Set<string>();
  private readonly seen = new Set<string>();

  sentId(id: string): void {
    this.sent.add(id);
  }

  saw(id: string): void {
    this.seen.add(id);
  }

  async drained(): Promise<void> {
    await until(() => [...this.sent].every((id) => this.seen.has(id)));
    // The gate orders an answer against its request's stored seq before applying it.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  }
}

/** One agent process: its writer and its gate. */
export interface Agent {
  readonly writer: SessionWriter;
  readonly gate: PermissionGate;
}

/**
 * A session with an agent (writer + gate) on one side and the app on the other, which answers
 * through the stream (a user-role `permission-response`) or the `permission` RPC.
 */
export interface GateWorld {
  readonly agent: Agent;
  /** The agent machine's record key, which every agent process of the world seals with. */
  readonly recordKey: Uint8Array;
  /** Resolves once the request for `callId` is stored, i.e. the app can see it. */
  requested(callId: string): Promise<void>;
  /** The app calls the `permission` RPC; resolves with the (decrypted) result. */
  rpc(body: unknown): Promise<unknown>;
  /**
   * The app appends a user `permission-response` to the stream; `extra` forges fields another
   * client could write (`via`, `updatedInput`).
   */
  streamAnswer(callId: string, optionId: string, extra?: StreamAnswerExtra): Promise<void>;
  /** Resolves once the gate has read every answer the app appended so far. */
  drain(): Promise<void>;
  /**
   * Holds back what the gate reads from the stream until the returned function is called, as a
   * slow connection would: records are stored, the gate sees them later, in order.
   */
  holdStream(): () => void;
  /** Everything in the stream, decrypted, after the agent's writer flushed. */
  messages(): Promise<SessionMessage[]>;
  /** The agentState the app sees. */
  agentState(): Promise<StateObject>;
  /** A new agent process on the same session (the old one is disposed and its writer closed, or abandoned). */
  restart(config?: GateConfig, options?: { abandon?: boolean }): Promise<Agent>;
  close(): Promise<void>;
}

export interface WorldFactory {
  readonly name: string;
  create(config?: GateConfig): Promise<GateWorld>;
}

/** Waits until the world's stream holds the `permission-request` of `callId`. */
async function requestedIn(world: GateWorld, callId: string): Promise<void> {
  await until(async () =>
    (await world.messages()).some((m) => m.type === 'permission-request' && m.callId === callId),
  );
}

export const memoryWorld: WorldFactory = {
  name: 'MemoryTransport',
  async create(config = {}) {
    const transport = new MemoryTransport();
    const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };
    const reader = new SessionReader({ transport, key });
    const state = new MemorySessionState();
    const app = new SessionWriter({ transport, key });
    let rpc = new MemoryRpc();
    let kill = new Subject<void>();
    const sightings = new Sightings();
    const valve = new Valve();
    // The agent machine's record key, kept across restarts as connect() keeps it in the happy home.
    const recordKey = globalThis.crypto.getRandomValues(new Uint8Array(32));
    const startAgent = async (cfg: GateConfig, history: SessionMessage[]): Promise<Agent> => {
      const writer = new SessionWriter({ transport, key });
      rpc = new MemoryRpc();
      kill = new Subject<void>();
      // Only what comes after the history is new input, as for a reopened server session.
      const incoming = valve.pipe(reader.events$({ afterSeq: transport.records.length })).pipe(
        takeUntil(kill),
        filter((e) => e.kind === 'message'),
        map((e) => (e.kind === 'message' ? { message: e.message, seq: e.seq } : (undefined as never))),
        tap((input) => sightings.saw(input.message.id)),
      );
      const gate = await PermissionGate.create({
        recordKey,
        ...cfg,
        writer,
        rpc,
        incoming,
        state,
        push: state,
        history,
      });
      return { writer, gate };
    };
    let agent = await startAgent(config, []);
    const world: GateWorld = {
      get agent() {
        return agent;
      },
      recordKey,
      requested: (callId) => requestedIn(world, callId),
      rpc: (body) => rpc.call('permission', body),
      async streamAnswer(callId, optionId, extra = {}) {
        const { message, delivery } = app.appendMessage({
          role: 'user',
          type: 'permission-response',
          callId,
          optionId,
          ...extra,
        });
        sightings.sentId(message.id);
        await delivery;
      },
      drain: () => sightings.drained(),
      holdStream: () => valve.hold(),
      async messages() {
        await agent.writer.flush();
        return reader.messages();
      },
      async agentState() {
        await agent.gate.settled();
        return state.agentState;
      },
      async restart(cfg = {}, options = {}) {
        // A crash leaves everything as it is: no more writes, no more input.
        if (!options.abandon) await agent.writer.close();
        await agent.writer.flush().catch(() => undefined);
        kill.next();
        agent = await startAgent(cfg, await reader.messages());
        return agent;
      },
      async close() {
        agent.gate.dispose();
        await agent.writer.close();
      },
    };
    return world;
  },
};

export const relayWorld: WorldFactory = {
  name: 'relay',
  async create(config = {}) {
    const account: RelayAccount = await relayWithAccount();
    const sessions: Session[] = [];
    const open = async (sessionId?: string): Promise<Session> => {
      const s = await connect({
        server: account.relay.url,
        credentials: account.credentials,
        ...(sessionId ? { sessionId } : {}),
        archiveOnClose: false,
        // The test builds its own gate, with the configuration under test.
        permissions: false,
      });
      sessions.push(s);
      return s;
    };
    let session = await open();
    const app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
    const key = await app.keyOf(session.id);
    const sightings = new Sightings();
    const valve = new Valve();
    const recordKey = globalThis.crypto.getRandomValues(new Uint8Array(32));
    const startAgent = async (s: Session, cfg: GateConfig, history: SessionMessage[]): Promise<Agent> => {
      const gate = await PermissionGate.create({
        recordKey,
        ...cfg,
        writer: s.writer,
        rpc: s.rpc,
        incoming: valve.pipe(s.incoming$).pipe(tap((input) => sightings.saw(input.message.id))),
        state: s.state,
        push: s.push,
        history,
      });
      return { writer: s.writer, gate };
    };
    let agent = await startAgent(session, config, []);
    const world: GateWorld = {
      get agent() {
        return agent;
      },
      recordKey,
      requested: (callId) => requestedIn(world, callId),
      rpc: (body) => app.call(session.id, 'permission', body, key),
      async streamAnswer(callId, optionId, extra = {}) {
        const id = globalThis.crypto.randomUUID().replace(/-/g, '');
        sightings.sentId(id);
        await app.send(
          session.id,
          { id, time: Date.now(), role: 'user', type: 'permission-response', callId, optionId, ...extra },
          key,
        );
      },
      drain: () => sightings.drained(),
      holdStream: () => valve.hold(),
      async messages() {
        await agent.writer.flush();
        return session.reader.messages();
      },
      async agentState() {
        await agent.gate.settled();
        const row = await app.session(session.id);
        return ((await app.decrypt(row.agentState, key)) ?? {}) as StateObject;
      },
      async restart(cfg = {}, options = {}) {
        const id = session.id;
        if (!options.abandon) await session.close({ archive: false });
        else {
          // A crash: what was sent stays, the connection goes, nothing more is written.
          await session.writer.flush().catch(() => undefined);
          await session.transport.close({ end: false, archive: false });
        }
        session = await open(id);
        agent = await startAgent(session, cfg, await session.reader.messages());
        return agent;
      },
      async close() {
        app.close();
        for (const s of sessions) await s.close({ archive: false }).catch(() => undefined);
        await account.relay.close();
      },
    };
    return world;
  },
};

export const worlds: readonly WorldFactory[] = [memoryWorld, relayWorld];

/** Opens the world a test runs in; the set-up closes it after the test. */
export type OpenWorld = (config?: Parameters<WorldFactory['create']>[0]) => Promise<GateWorld>;

/**
 * The one world set-up of the gate's suites: `describe`s `title` once per world (`%s` is the
 * world's name) and hands `body` the `open` its tests call first; each world opened is closed
 * after its test.
 */
export function describeEachWorld(title: string, body: (open: OpenWorld) => void): void {
  describe.each(worlds.map((w) => [w.name, w] as const))(title, (_name, factory) => {
    const opened: GateWorld[] = [];
    afterEach(async () => {
      for (const world of opened.splice(0)) await world.close();
    });
    body(async (config) => {
      const world = await factory.create(config);
      opened.push(world);
      return world;
    });
  });
}
