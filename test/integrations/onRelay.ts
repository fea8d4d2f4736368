import { filter, firstValueFrom } from 'rxjs';
import type { MessageOfType, SessionMessage, SessionMessageType } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { connect } from 'happy-session/node';
import type { GateSettings, Session } from 'happy-session/node';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

/**
 * An agent's session on a relay of its own (real sockets), and the Happy app beside it: what the
 * adapter tests drive a framework through. `close()` stops all of it.
 */
export interface OnRelay {
  readonly account: RelayAccount;
  readonly session: Session;
  readonly app: AppClient;
  readonly key: RecordKey;
  /** The next message of `type` the agent appends (subscribe before causing it). */
  next<T extends SessionMessageType>(type: T): Promise<MessageOfType<T>>;
  /** Answers the call's permission request with the app's `permission` RPC (legacy body). */
  answer(callId: string, body: Record<string, unknown>): Promise<unknown>;
  /** The app's stop button. */
  stop(): Promise<unknown>;
  /** Everything the agent wrote, read back from the relay. */
  readBack(): Promise<SessionMessage[]>;
  close(): Promise<void>;
}

export async function onRelay(permissions: GateSettings = {}): Promise<OnRelay> {
  const account = await relayWithAccount();
  const session = await connect({ server: account.relay.url, credentials: account.credentials, permissions });
  const app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  const key = await app.keyOf(session.id);
  return {
    account,
    session,
    app,
    key,
    next: (type) =>
      firstValueFrom(
        session.writer.messages$.pipe(filter((m): m is MessageOfType<typeof type> => m.type === type)),
      ),
    answer: (callId, body) => app.call(session.id, 'permission', { id: callId, ...body }, key),
    stop: () => app.call(session.id, 'abort', { reason: "The user doesn't want to proceed." }, key),
    readBack: async () => {
      await session.writer.flush();
      return session.reader.messages();
    },
    close: async () => {
      app.close();
      await session.close();
      await account.relay.close();
    },
  };
}

/**
 * The stream as lines a person can compare with what the framework produced: texts, calls with
 * their arguments, their ends (with the error), nested two spaces per `parentId` level; the
 * subagent's label on the call that spawns it.
 */
export function transcript(messages: readonly SessionMessage[]): string[] {
  const depth = new Map<string, number>();
  const lines: string[] = [];
  const indent = (parentId: string | undefined) => '  '.repeat(parentId ? (depth.get(parentId) ?? 0) + 1 : 0);
  for (const m of messages) {
    if (m.role !== 'agent') continue;
    switch (m.type) {
      case 'text':
        lines.push(`${indent(m.parentId)}${m.thinking ? 'thinking' : 'text'}: ${m.text}`);
        break;
      case 'tool-call-start':
        depth.set(m.callId, m.parentId ? (depth.get(m.parentId) ?? 0) + 1 : 0);
        lines.push(
          `${indent(m.parentId)}call ${m.toolName} ${JSON.stringify(m.args)}${m.agentTitle ? ` [${m.agentTitle}]` : ''}`,
        );
        break;
      case 'tool-call-end':
        lines.push(`${indent(m.parentId)}end${m.error ? ` ! ${m.error}` : ''}`);
        break;
      case 'photo':
        lines.push(`${indent(m.parentId)}photo ${m.width}x${m.height}`);
        break;
      case 'turn-end':
        lines.push(`turn ${m.status}`);
        break;
      default:
        break;
    }
  }
  return lines;
}
