import type { AppendedMessage, SessionRow, StoredMessage } from 'happy-session/internal';
import type { MessageRecord } from './store/messages.js';
import type { SessionRecord } from './store/sessions.js';

/**
 * The relay's rows in the Happy server's wire shapes. The shapes themselves are the SDK's
 * (`wire/`, through `happy-session/internal`; docs/wire.md): one definition for the SDK's transport, this relay and its
 * viewer.
 */

/** The data key is stored as bytes and always returned as standard b64 (docs/wire.md §3.3). */
export function encodeDataKey(key: Buffer | null): string | null {
  return key ? key.toString('base64') : null;
}

/** The session shape of the v2 list routes (no `lastMessage`). */
export function sessionJson(session: SessionRecord): SessionRow {
  return {
    id: session.id,
    seq: session.seq,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    active: session.active,
    activeAt: session.lastActiveAt,
    metadata: session.metadata,
    metadataVersion: session.metadataVersion,
    agentState: session.agentState,
    agentStateVersion: session.agentStateVersion,
    dataEncryptionKey: encodeDataKey(session.dataEncryptionKey),
  };
}

/** The session shape of `POST /v1/sessions` and `GET /v1/sessions`, with `lastMessage: null`. */
export function sessionJsonWithLastMessage(session: SessionRecord): SessionRow {
  return { ...sessionJson(session), lastMessage: null };
}

/** A stored message in its wire shape (docs/wire.md §5.2). */
export function messageJson(message: MessageRecord): StoredMessage {
  return {
    id: message.id,
    seq: message.seq,
    content: { t: 'encrypted', c: message.content },
    localId: message.localId,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
  };
}

/** The row summary that `POST /v3/sessions/:id/messages` answers with (no content). */
export function messageAckJson(message: MessageRecord): AppendedMessage {
  return {
    id: message.id,
    seq: message.seq,
    localId: message.localId,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
  };
}
