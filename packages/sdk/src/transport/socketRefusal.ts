import { SdkError } from '../errors.js';
import { REFUSED_TOKEN_HINT } from './keyHints.js';

/** Messages the server's handshake refuses a token with (docs/wire.md §2.1). */
const AUTH_REFUSALS = new Set(['Missing authentication token', 'Invalid authentication token']);

/**
 * The typed error of a socket handshake the server refused, or undefined for a failure of the
 * network (which socket.io retries by itself). socket.io-client gives up on a socket only when the
 * server's middleware refused it (the socket is no longer `active`), so that is what tells the two
 * apart, whatever words the server chose: a bad token is `transport.unauthorized`, anything else
 * (the relay's per-account socket limit, a proxy's policy) `transport.socket_refused` with the
 * server's reason (docs/transport.md, "One socket per account").
 */
export function socketRefusal(error: Error, stillTrying: boolean): SdkError | undefined {
  if (AUTH_REFUSALS.has(error.message)) {
    return new SdkError('transport.unauthorized', `The server refused the socket: ${error.message}.`, {
      hint: REFUSED_TOKEN_HINT,
    });
  }
  if (stillTrying) return undefined;
  return new SdkError('transport.socket_refused', `The server refused the socket: ${error.message}.`, {
    hint: 'the server turned the connection away (on the embedded relay: too many sockets for this account, see its socketsPerAccount limit); close other clients of this account or raise the limit',
    details: { reason: error.message },
  });
}
