/** A JSON object as stored in encrypted metadata or agentState. */
export type StateObject = Record<string, unknown>;

/**
 * The session's two versioned, encrypted side records (docs/wire.md §4.2-§4.4). Updates are
 * read-modify-write functions, so an implementation can re-run them on a version mismatch against
 * what another writer (the app) stored, and never clobber fields it does not know.
 */
export interface SessionStateStore {
  /** The latest known agentState (empty object when none). */
  readonly agentState: Readonly<StateObject>;
  /** The latest known metadata. */
  readonly metadata: Readonly<StateObject>;
  /** Applies `update` to the current agentState and stores the result. */
  updateAgentState(update: (current: StateObject) => StateObject): Promise<StateObject>;
  /** Applies `update` to the current metadata and stores the result. */
  updateMetadata(update: (current: StateObject) => StateObject): Promise<StateObject>;
}

/** A push notification request (docs/wire.md §9 item 4). */
export interface PushEvent {
  readonly kind: 'done' | 'permission' | 'question';
  readonly title: string;
  readonly body: string;
  readonly data?: Record<string, unknown>;
}

/** Sends push notifications for a session. */
export interface PushNotifier {
  push(event: PushEvent): Promise<void>;
}

/** In-process {@link SessionStateStore} and {@link PushNotifier}: what a test or the demo inspects. */
export class MemorySessionState implements SessionStateStore, PushNotifier {
  agentState: StateObject = {};
  metadata: StateObject;
  agentStateVersion = 0;
  metadataVersion = 0;
  readonly pushes: PushEvent[] = [];

  constructor(metadata: StateObject = {}) {
    this.metadata = metadata;
  }

  async updateAgentState(update: (current: StateObject) => StateObject): Promise<StateObject> {
    this.agentState = update(structuredClone(this.agentState));
    this.agentStateVersion++;
    return this.agentState;
  }

  async updateMetadata(update: (current: StateObject) => StateObject): Promise<StateObject> {
    this.metadata = update(structuredClone(this.metadata));
    this.metadataVersion++;
    return this.metadata;
  }

  async push(event: PushEvent): Promise<void> {
    this.pushes.push(event);
  }
}
