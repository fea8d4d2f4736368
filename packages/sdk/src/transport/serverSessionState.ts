import { Subject } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import type { HappyServerTransport } from './happyServerTransport.js';
import type { SessionStateStore, StateObject } from '../ports/sessionState.js';
import { VersionedState } from './versionedState.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { VersionedAck } from './versionedState.js';

/** A change of metadata or agentState, by this process or another writer. */
export interface StateChange {
  readonly field: 'metadata' | 'agentState';
  readonly value: Readonly<StateObject>;
  readonly version: number;
}

/** Options of a {@link ServerSessionState}. */
export interface ServerSessionStateOptions {
  readonly transport: HappyServerTransport;
  readonly key: RecordKey;
  readonly metadata: { readonly value: StateObject; readonly version: number };
  readonly agentState: { readonly value: StateObject; readonly version: number };
  /** How long to wait for an update's ack; default 10 s (a foreign session gets none). */
  readonly ackTimeoutMs?: number;
  readonly maxAttempts?: number;
  readonly logger?: Logger;
  /**
   * Checked before every write with the agentState the write replaces (for metadata, the latest
   * known): it throws to refuse the write. The writer lease's fence (docs/writer-lease.md).
   */
  readonly guard?: (agentState: Readonly<StateObject>) => void;
}

const noAck = { result: 'error' } as const;

function toAck(raw: unknown, field: 'metadata' | 'agentState'): VersionedAck {
  if (typeof raw !== 'object' || raw === null) return noAck;
  const ack = raw as Record<string, unknown>;
  if (ack.result === 'success' && typeof ack.version === 'number')
    return { result: 'success', version: ack.version };
  if (ack.result === 'version-mismatch' && typeof ack.version === 'number') {
    const value = ack[field];
    return {
      result: 'version-mismatch',
      version: ack.version,
      value: typeof value === 'string' ? value : null,
    };
  }
  // The relay names a full disk (docs/relay.md, "A full disk"); the Happy server's error says nothing.
  if (ack.result === 'error' && ack.code === 'storage_full') return { result: 'error', storageFull: true };
  return noAck;
}

/**
 * The session's metadata and agentState on a Happy server (docs/wire.md §4.2-§4.4): updates go out
 * as `update-metadata` / `update-state` with optimistic concurrency, and `update-session` events
 * from other writers (the app) are adopted when newer.
 */
export class ServerSessionState implements SessionStateStore {
  private readonly metadataState: VersionedState;
  private readonly agentStateState: VersionedState;
  private readonly changesSubject = new Subject<StateChange>();
  private readonly subscription: Subscription;
  private readonly announced = { metadata: -1, agentState: -1 };
  private readonly guard: ((agentState: Readonly<StateObject>) => void) | undefined;

  /** Every adopted change: own writes and other writers' updates. */
  readonly changes$: Observable<StateChange> = this.changesSubject.asObservable();

  /** {@link ServerSessionState.changes$} as an async iterable. */
  changes(options: IterateOptions = {}): AsyncGenerator<StateChange> {
    return asyncIterableOf(this.changes$, options);
  }

  constructor(options: ServerSessionStateOptions) {
    const { transport, key } = options;
    this.guard = options.guard;
    const timeout = options.ackTimeoutMs ?? 10_000;
    const sid = transport.sessionId;
    const common = {
      key,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    };
    this.metadataState = new VersionedState({
      ...common,
      field: 'metadata',
      ...options.metadata,
      send: async (metadata, expectedVersion) =>
        toAck(
          await transport.socket.emitWithAck('update-metadata', { sid, metadata, expectedVersion }, timeout),
          'metadata',
        ),
    });
    this.agentStateState = new VersionedState({
      ...common,
      field: 'agentState',
      ...options.agentState,
      send: async (agentState, expectedVersion) =>
        toAck(
          await transport.socket.emitWithAck('update-state', { sid, agentState, expectedVersion }, timeout),
          'agentState',
        ),
    });
    this.subscription = transport.sessionUpdates$.subscribe((update) => {
      if (update.metadata) void this.adopt('metadata', update.metadata.value, update.metadata.version);
      if (update.agentState)
        void this.adopt('agentState', update.agentState.value, update.agentState.version);
    });
  }

  get metadata(): Readonly<StateObject> {
    return this.metadataState.value;
  }

  get agentState(): Readonly<StateObject> {
    return this.agentStateState.value;
  }

  /** Version of {@link ServerSessionState.metadata}. */
  get metadataVersion(): number {
    return this.metadataState.version;
  }

  /** Version of {@link ServerSessionState.agentState}. */
  get agentStateVersion(): number {
    return this.agentStateState.version;
  }

  async updateMetadata(update: (current: StateObject) => StateObject): Promise<StateObject> {
    const guard = this.guard;
    const value = await this.metadataState.update(
      guard
        ? (current) => {
            guard(this.agentStateState.value);
            return update(current);
          }
        : update,
    );
    this.announce('metadata', this.metadataState);
    return value;
  }

  async updateAgentState(update: (current: StateObject) => StateObject): Promise<StateObject> {
    const guard = this.guard;
    const value = await this.agentStateState.update(
      guard
        ? (current) => {
            guard(current);
            return update(current);
          }
        : update,
    );
    this.announce('agentState', this.agentStateState);
    return value;
  }

  /** Stops following `update-session` events. */
  close(): void {
    this.subscription.unsubscribe();
    this.changesSubject.complete();
  }

  private async adopt(
    field: 'metadata' | 'agentState',
    value: string | null,
    version: number,
  ): Promise<void> {
    const state = field === 'metadata' ? this.metadataState : this.agentStateState;
    if (await state.applyRemote(value, version)) this.announce(field, state);
  }

  /** Reports a version once, whether the ack or the echoed `update-session` came first. */
  private announce(field: 'metadata' | 'agentState', state: VersionedState): void {
    if (state.version <= this.announced[field]) return;
    this.announced[field] = state.version;
    this.changesSubject.next({ field, value: state.value, version: state.version });
  }
}
