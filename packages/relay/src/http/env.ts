import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';

/**
 * What the relay's Hono app carries per request: the Node request and response (so an upload can
 * stream from the socket) and the account the bearer token resolved to.
 */
export interface RelayEnv {
  Bindings: HttpBindings;
  Variables: {
    /** The account of the bearer token; set by {@link createAuthenticate}. */
    userId: string;
  };
}

/** A request context of the relay. */
export type RelayContextHttp = Context<RelayEnv>;

/** A middleware of the relay. */
export type RelayMiddleware = MiddlewareHandler<RelayEnv>;
