import type { Hono } from 'hono';
import { RELAY_INFO_PATH } from 'happy-session/internal';
import type { RelayInfo } from 'happy-session/internal';
import type { RelayEnv } from '../http/env.js';

/** What the relay says about itself: its viewer shows v2 best. */
const INFO: RelayInfo = { name: 'happy-session-relay', format: 'v2' };

/**
 * `GET /v1/happy-session/relay` (docs/wire.md §0, "The embedded relay"): tells the SDK it talks to
 * the embedded relay, so `connect({format: 'auto'})` writes v2 for its viewer. The Happy server has
 * no such route and answers 404, and the SDK then writes v1 for today's app.
 */
export function relayInfoRoutes(app: Hono<RelayEnv>): void {
  app.get(RELAY_INFO_PATH, (c) => c.json(INFO));
}
