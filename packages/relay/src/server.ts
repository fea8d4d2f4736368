import { setMaxListeners } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { Server } from 'socket.io';
import { silentLogger } from 'happy-session';
import type { AttachmentStore } from './attachments.js';
import { FileAttachmentStore, SqliteAttachmentStore } from './attachments.js';
import type { RelayContext } from './context.js';
import { ATTACHMENTS_DIR, openDatabase } from './db.js';
import { EventRouter } from './events.js';
import { createAuthenticate } from './http/authenticate.js';
import { cors } from './http/cors.js';
import type { RelayEnv } from './http/env.js';
import { installErrorHandlers } from './http/errors.js';
import { ConcurrencyLimiter, RateLimiter, resolveLimits } from './limits.js';
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
import { UploadStore } from './store/uploads.js';
import { TokenSigner } from './tokens.js';
import type { Relay, RelayOptions } from './types.js';
import { viewerRoutes } from './viewer/route.js';
import { ViewerTickets } from './viewer/tickets.js';

const DEFAULT_RPC_WAIT_MS = 15_000;
const DEFAULT_RPC_CALL_TIMEOUT_MS = 30_000;
/** How long `close()` lets requests under way finish before it cuts their connections. */
const DRAIN_MS = 10_000;
/** How often, while draining, connections that finished their request are closed. */
const DRAIN_POLL_MS = 100;

function formatUrl(host: string, port: number): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return `http://${bracketed}:${port}`;
}

function listen(server: HttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Starts the embedded Happy-compatible relay: the real server's HTTP API and socket.io events for
 * everything an agent SDK and a viewer use (docs/wire.md §0-§8), on one machine, with SQLite
 * storage and no account anywhere. It only ever stores the ciphertext clients send, checks the
 * token of a request before it reads its body, and bounds what each account may use
 * (docs/relay.md).
 *
 * @throws {SdkError} `relay.store_not_writable` or `relay.data_dir_insecure` when `dataDir` cannot
 *   be used; the listen error (`EADDRINUSE`, …) as it is.
 * @example
 * const relay = await startRelay();            // in memory, free port on 127.0.0.1
 * // ... point the SDK at relay.url ...
 * await relay.close();
 */
export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? '127.0.0.1';
  const db = openDatabase(options.dataDir, logger);
  const lifetime = new AbortController();
  // Every request and RPC call in flight watches the relay's lifetime: many listeners is normal.
  setMaxListeners(0, lifetime.signal);
  const limits = resolveLimits(options.limits);
  const tickets = new ViewerTickets();

  const app = new Hono<RelayEnv>();
  // Hono's own Request and Response stay out of the host program's globals.
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false }) as HttpServer;
  const io = new Server(server, {
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
    uploads: new UploadStore(db),
    tokens: TokenSigner.fromDatabase(db),
    events,
    presence,
    logger,
    publicUrl: options.publicUrl,
    url: '',
    rpcWaitMs: options.rpcWaitMs ?? DEFAULT_RPC_WAIT_MS,
    rpcCallTimeoutMs: options.rpcCallTimeoutMs ?? DEFAULT_RPC_CALL_TIMEOUT_MS,
    limits,
    messageRate: new RateLimiter(limits.messagesPerMinute),
    sockets: new ConcurrencyLimiter(limits.socketsPerAccount),
    rpcCalls: new ConcurrencyLimiter(limits.rpcCallsInFlight),
    closing: lifetime.signal,
  };

  app.use('*', cors);
  app.use('*', async (c, next) => {
    await next();
    logger.debug('relay request', { method: c.req.method, url: c.req.path, status: c.res.status });
  });
  installErrorHandlers(app, logger);
  const authenticate = createAuthenticate(ctx);
  viewerRoutes(app, tickets, authenticate, logger);
  authRoutes(app, ctx, authenticate);
  sessionRoutes(app, ctx, authenticate);
  messageRoutes(app, ctx, authenticate);
  attachmentRoutes(app, ctx, authenticate);
  pushRoutes(app, ctx, authenticate);
  relayInfoRoutes(app);

  installSocketAuth(io, ctx);
  io.on('connection', (socket) => handleConnection(io, socket, ctx));

  try {
    await listen(server, options.port ?? 0, host);
  } catch (error) {
    lifetime.abort();
    io.close();
    db.close();
    throw error;
  }
  presence.start();

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = formatUrl(host, port);
  ctx.url = url;
  logger.info('relay listening', { url, dataDir: options.dataDir ?? null });

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    lifetime.abort();
    presence.stop();
    tickets.clear();
    // socket.io's close disconnects every socket and closes the shared HTTP server, which stops
    // taking connections and calls back once the requests under way have finished.
    const idle = setInterval(() => server.closeIdleConnections(), DRAIN_POLL_MS);
    const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
    await new Promise<void>((resolve) => {
      void io.close(() => resolve());
    });
    clearInterval(idle);
    clearTimeout(cut);
    if (options.dataDir !== undefined) db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    logger.info('relay closed', { url });
  };
  return {
    url,
    port,
    viewerLink: (masterSecret, sessionId) => tickets.link(url, masterSecret, sessionId),
    close: () => (closing ??= close()),
  };
}
