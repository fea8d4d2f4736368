import { BehaviorSubject, Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { io } from 'socket.io-client';
import type { Socket } from 'socket.io-client';
import type { StoredRecord } from 'happy-session';

/** A `new-message` hint: a record stored in session `sessionId` (docs/wire.md §2.3). */
export interface MessageHint {
  readonly sessionId: string;
  readonly record: StoredRecord;
}

/** What an `rpc-call` answered (docs/wire.md §7.1). */
export type RpcAnswer = { ok: true; result: unknown } | { ok: false; error: string };

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

  /** Records as the server announces them; a hint only, readers fill gaps over HTTP. */
  readonly hints$: Observable<MessageHint> = this.hints.asObservable();
  /** A session was created, changed or deleted. */
  readonly sessionChanges$: Observable<void> = this.sessionChanges.asObservable();
  /** Every (re)connect: hints may have been missed before it. */
  readonly connects$: Observable<void> = this.connects.asObservable();
  /** Whether the socket is connected now. */
  readonly connected$: Observable<boolean> = this.connectedState.asObservable();

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
  }

  /**
   * Calls `<sessionId>:<method>` on the agent with encrypted params. Resolves with the server's
   * answer (`ok: false` when no agent has the method or it did not answer); never rejects.
   */
  async call(method: string, params: string): Promise<RpcAnswer> {
    try {
      const answer = asRecord(
        await this.socket.timeout(RPC_TIMEOUT_MS).emitWithAck('rpc-call', { method, params }),
      );
      if (answer.ok === true) return { ok: true, result: answer.result };
      return { ok: false, error: typeof answer.error === 'string' ? answer.error : 'RPC call failed' };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
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
