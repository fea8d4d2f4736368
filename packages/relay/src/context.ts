import type { Logger } from 'happy-session';
import type { AttachmentStore } from './attachments.js';
import type { RelayDatabase } from './db.js';
import type { EventRouter } from './events.js';
import type { ConcurrencyLimiter, RateLimiter, ResolvedLimits } from './limits.js';
import type { SessionPresence } from './presence.js';
import type { AccountStore } from './store/accounts.js';
import type { ActivityStore } from './store/activity.js';
import type { AuthRequestStore } from './store/authRequests.js';
import type { MessageStore } from './store/messages.js';
import type { SessionStore } from './store/sessions.js';
import type { UploadStore } from './store/uploads.js';
import type { TokenSigner } from './tokens.js';

/** Everything the routes and socket handlers of one relay share. */
export interface RelayContext {
  db: RelayDatabase;
  accounts: AccountStore;
  authRequests: AuthRequestStore;
  sessions: SessionStore;
  messages: MessageStore;
  activity: ActivityStore;
  attachments: AttachmentStore;
  uploads: UploadStore;
  tokens: TokenSigner;
  events: EventRouter;
  presence: SessionPresence;
  logger: Logger;
  publicUrl: string | undefined;
  /** The relay's own base URL; known once it listens, used when a request names no host. */
  url: string;
  rpcWaitMs: number;
  rpcCallTimeoutMs: number;
  limits: ResolvedLimits;
  /** Records written per account and minute, over HTTP and the socket. */
  messageRate: RateLimiter;
  /** Sockets connected per account. */
  sockets: ConcurrencyLimiter;
  /** `rpc-call`s waiting for their answer, per account. */
  rpcCalls: ConcurrencyLimiter;
  /** Aborted when the relay closes, so pending waits (RPC lookups) end at once. */
  closing: AbortSignal;
}

/**
 * Resolves a bearer token to its account id: the signature must hold and the account must exist
 * in this relay's database. Null for anything else.
 */
export function resolveToken(ctx: RelayContext, token: string): string | null {
  const claims = ctx.tokens.verify(token);
  if (!claims || !ctx.accounts.exists(claims.user)) return null;
  return claims.user;
}
