import type { MessageRecord } from './store/messages.js';
import type { SessionRecord } from './store/sessions.js';

/** A session as the HTTP API returns it (happy-wire.md §4.1). */
export interface SessionJson {
  id: string;
  seq: number;
  metadata: string;
  metadataVersion: number;
  agentState: string | null;
  agentStateVersion: number;
  dataEncryptionKey: string | null;
  active: boolean;
  activeAt: number;
  createdAt: number;
  updatedAt: number;
  lastMessage?: null;
}

/** Message content on the wire: always the encrypted envelope (§5.1). */
export interface EncryptedContent {
  t: 'encrypted';
  c: string;
}

/** A message as the read APIs and `new-message` return it (§5.2). */
export interface MessageJson {
  id: string;
  seq: number;
  content: EncryptedContent;
  localId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The data key is stored as bytes and always returned as standard b64 (§3.3). */
export function encodeDataKey(key: Buffer | null): string | null {
  return key ? key.toString('base64') : null;
}

/** The session shape of the v2 list routes (no `lastMessage`). */
export function sessionJson(session: SessionRecord): SessionJson {
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
export function sessionJsonWithLastMessage(session: SessionRecord): SessionJson {
  return { ...sessionJson(session), lastMessage: null };
}

/** A stored message in its wire shape. */
export function messageJson(message: MessageRecord): MessageJson {
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
export function messageAckJson(message: MessageRecord): Omit<MessageJson, 'content'> {
  return {
    id: message.id,
    seq: message.seq,
    localId: message.localId,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
  };
}
