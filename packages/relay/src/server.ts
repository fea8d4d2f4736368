import { join } from 'node:path';
import Fastify from 'fastify';
import { Server } from 'socket.io';
import { silentLogger } from 'happy-session';
import type { AttachmentStore } from './attachments.js';
import { FileAttachmentStore, SqliteAttachmentStore } from './attachments.js';
import type { RelayContext } from './context.js';
import { openDatabase } from './db.js';
import { EventRouter } from './events.js';
import { createAuthenticate } from './http/authenticate.js';
import { installCors } from './http/cors.js';
import { installErrorHandlers } from './http/errors.js';
import { zodValidatorCompiler } from './http/validation.js';
import { SessionPresence } from './presence.js';
import { attachmentRoutes } from './routes/attachments.js';
import { authRoutes } from './routes/auth.js';
import { messageRoutes } from './routes/messages.js';
import { pushRoutes } from './routes/push.js';
import { relayInfoRoutes } from './routes/relayInfo.js';
import { sessionRoutes } from './routes/sessions.js';
import { installSocketAuth } from './socket/auth.js';
import { handleConnection } from './socket/connection.js';
import { AccountStore } from './store/accounts.js';
import { ActivityStore } from './store/activity.js';
import { AuthRequestStore } from './store/authRequests.js';
import { MessageStore } from './store/messages.js';
import { SessionStore } from './store/sessions.js';
import { TokenSigner } from './tokens.js';
import type { Relay, RelayOptions } from './types.js';
import { viewerRoutes } from './viewer/route.js';

/** Fastify body limit of the real server: 100 MB (docs/wire.md §0). */
const BODY_LIMIT = 100 * 1024 * 1024;
const DEFAULT_RPC_WAIT_MS = 15_000;
const DEFAULT_RPC_CALL_TIMEOUT_MS = 30_000;
/** Subfolder of the data dir that holds attachment blobs. */
export const ATTACHMENTS_DIR = 'attachments';

function formatUrl(host: string, port: number): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return `http://${bracketed}:${port}`;
}

/**
 * Starts the embedded Happy-compatible relay: the real server's HTTP API and socket.io events for
 * everything an agent SDK and a viewer use (docs/wire.md §0-§8), on one machine, with SQLite
 * storage and no account anywhere. It only ever stores the ciphertext clients send.
 *
 * @example
 * const relay = await startRelay();            // in memory, free port on 127.0.0.1
 * // ... point the SDK at relay.url ...
 * await relay.close();
 */
export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? '127.0.0.1';
  const db = openDatabase(options.dataDir);
  const lifetime = new AbortController();

  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  const io = new Server(app.server, {
    path: '/v1/updates',
    serveClient: false,
    transports: ['websocket', 'polling'],
    pingInterval: 15_000,
    pingTimeout: 45_000,
    connectTimeout: 20_000,
    cors: { origin: '*', methods: ['GET', 'POST', 'OPTIONS'], credentials: true, allowedHeaders: ['*'] },
  });

  const accounts = new AccountStore(db);
  const sessions = new SessionStore(db);
  const events = new EventRouter(io, accounts);
  const presence = new SessionPresence(sessions, events);
  const attachments: AttachmentStore =
    options.dataDir === undefined
      ? new SqliteAttachmentStore(db)
      : new FileAttachmentStore(join(options.dataDir, ATTACHMENTS_DIR));
  const ctx: RelayContext = {
    db,
    accounts,
    authRequests: new AuthRequestStore(db),
    sessions,
    messages: new MessageStore(db, sessions),
    activity: new ActivityStore(db),
    attachments,
    tokens: TokenSigner.fromDatabase(db),
    events,
    presence,
    logger,
    publicUrl: options.publicUrl,
    url: '',
    rpcWaitMs: options.rpcWaitMs ?? DEFAULT_RPC_WAIT_MS,
    rpcCallTimeoutMs: options.rpcCallTimeoutMs ?? DEFAULT_RPC_CALL_TIMEOUT_MS,
    closing: lifetime.signal,
  };

  app.setValidatorCompiler(zodValidatorCompiler);
  installCors(app);
  installErrorHandlers(app, logger);
  app.addHook('onResponse', async (request, reply) => {
    logger.debug('relay request', { method: request.method, url: request.url, status: reply.statusCode });
  });
  // Attachment uploads are raw encrypted bytes; fastify would refuse the media type otherwise.
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });
  viewerRoutes(app, logger);
  const authenticate = createAuthenticate(ctx);
  authRoutes(app, ctx, authenticate);
  sessionRoutes(app, ctx, authenticate);
  messageRoutes(app, ctx, authenticate);
  attachmentRoutes(app, ctx, authenticate);
  pushRoutes(app, ctx, authenticate);
  relayInfoRoutes(app);

  installSocketAuth(io, ctx);
  io.on('connection', (socket) => handleConnection(io, socket, ctx));

  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    lifetime.abort();
    io.close();
    db.close();
    throw error;
  }
  presence.start();

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = formatUrl(host, port);
  ctx.url = url;
  logger.info('relay listening', { url, dataDir: options.dataDir ?? null });

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    lifetime.abort();
    presence.stop();
    // socket.io's close disconnects every socket and stops the shared HTTP server too.
    await new Promise<void>((resolve) => {
      void io.close(() => resolve());
    });
    await app.close();
    db.close();
    logger.info('relay closed', { url });
  };
  return {
    url,
    port,
    close: () => (closing ??= close()),
  };
}
