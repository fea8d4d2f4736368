import { BehaviorSubject, Subject, filter, map } from 'rxjs';
import type { Observable } from 'rxjs';
import { io } from 'socket.io-client';
import type { Socket } from 'socket.io-client';
import { callSessionRpc } from 'happy-session/internal';
import type { AgentActivity } from 'happy-session/user';
import type { SessionRpcCaller, StoredRecord } from 'happy-session/ports';
import type { RecordKey } from 'happy-session/crypto';

/** A `new-message` hint: a record stored in session `sessionId` (docs/wire.md §2.3). */
export interface MessageHint {
  readonly sessionId: string;
  readonly record: StoredRecord;
}

/** An agent's presence from an `activity` event (docs/wire.md §2.3). */
export interface ActivityHint {
  readonly sessionId: string;
  readonly activity: AgentActivity;
}

/** How long the viewer waits for an RPC answer: the relay's own wait plus its call timeout. */
const RPC_TIMEOUT_MS = 60_000;

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/**
 * The viewer's one user-scoped socket (path `/v1/updates`, docs/wire.md §2): `new-message` hints for
 * every session of the account, notice of session list changes, reconnects (after which readers
 * catch up over HTTP, since missed updates are gone), and `rpc-call` to an agent.
 */
export class ViewerSocket {
  private readonly socket: Socket;
  private readonly hints = new Subject<MessageHint>();
  private readonly sessionChanges = new Subject<void>();
  private readonly connects = new Subject<void>();
  private readonly connectedState = new BehaviorSubject<boolean>(false);
  private readonly activities = new Subject<ActivityHint>();

  /** Records as the server announces them; a hint only, readers fill gaps over HTTP. */
  readonly hints$: Observable<MessageHint> = this.hints.asObservable();
  /** A session was created, changed or deleted. */
  readonly sessionChanges$: Observable<void> = this.sessionChanges.asObservable();
  /** Every (re)connect: hints may have been missed before it. */
  readonly connects$: Observable<void> = this.connects.asObservable();
  /** Whether the socket is connected now. */
  readonly connected$: Observable<boolean> = this.connectedState.asObservable();
  /** Agents' presence as the server reports it, for every session of the account. */
  readonly activity$: Observable<ActivityHint> = this.activities.asObservable();

  constructor(baseUrl: string, token: string) {
    this.socket = io(baseUrl, {
      path: '/v1/updates',
      auth: { token, clientType: 'user-scoped' },
      transports: ['websocket'],
      reconnectionDelay: 1000,
      reconnectionDelayMax: 5000,
    });
    this.socket.on('connect', () => {
      this.connectedState.next(true);
      this.connects.next();
    });
    this.socket.on('disconnect', () => this.connectedState.next(false));
    this.socket.on('update', (payload: unknown) => this.onUpdate(asRecord(asRecord(payload).body)));
    this.socket.on('ephemeral', (payload: unknown) => {
      const event = asRecord(payload);
      if (event.type !== 'activity' || typeof event.id !== 'string') return;
      this.activities.next({
        sessionId: event.id,
        activity: { active: event.active === true, thinking: event.thinking === true },
      });
    });
  }

  /** The agent RPCs of one session, through the SDK's `callSessionRpc` on this socket. */
  rpcCaller(sessionId: string, key: RecordKey): SessionRpcCaller {
    return (method, params) => callSessionRpc(this.socket, sessionId, key, method, params, RPC_TIMEOUT_MS);
  }

  /** One session's agent presence. */
  activityOf(sessionId: string): Observable<AgentActivity> {
    return this.activity$.pipe(
      filter((hint) => hint.sessionId === sessionId),
      map((hint) => hint.activity),
    );
  }

  close(): void {
    this.socket.disconnect();
  }

  private onUpdate(body: Record<string, unknown>): void {
    switch (body.t) {
      case 'new-message': {
        const message = asRecord(body.message);
        const content = asRecord(message.content);
        if (typeof body.sid !== 'string' || typeof message.seq !== 'number' || typeof content.c !== 'string')
          return;
        this.hints.next({
          sessionId: body.sid,
          record: {
            seq: message.seq,
            localId: typeof message.localId === 'string' ? message.localId : null,
            content: content.c,
          },
        });
        return;
      }
      case 'new-session':
      case 'update-session':
      case 'delete-session':
        this.sessionChanges.next();
        return;
    }
  }
}
