import { startRelay } from './server.js';
import type { Relay, RelayOptions } from './types.js';

/**
 * Runs the relay as a long-lived server (the `happy-session serve` command): starts it and closes
 * it cleanly on SIGINT or SIGTERM (requests under way finish, sockets close, the database is
 * checkpointed), after which the process can exit on its own.
 */
export async function runRelayServer(options: RelayOptions = {}): Promise<Relay> {
  const relay = await startRelay(options);
  const shutdown = (signal: NodeJS.Signals) => {
    process.off('SIGINT', shutdown);
    process.off('SIGTERM', shutdown);
    options.logger?.info('relay shutting down', { signal });
    relay.close().catch((error: unknown) => {
      options.logger?.error('relay shutdown failed', { error: String(error) });
      process.exitCode = 1;
    });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return {
    url: relay.url,
    port: relay.port,
    viewerLink: (masterSecret, sessionId) => relay.viewerLink(masterSecret, sessionId),
    close: async () => {
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      await relay.close();
    },
  };
}
