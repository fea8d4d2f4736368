import type { Socket } from 'socket.io-client';
import { socketIo } from './socketIo.js';
import { SdkError } from '../errors.js';
import { REFUSED_TOKEN_HINT } from './keyHints.js';

/** Messages the server's handshake refuses a token with (docs/wire.md §2.1). */
const AUTH_REFUSALS = new Set(['Missing authentication token', 'Invalid authentication token']);

/**
 * Connects a user-scoped socket, as the Happy app does (docs/wire.md §2.1, §2.2): it receives the
 * `update` events of every session of the account and can make `rpc-call`s, but it sends no
 * heartbeat and registers no session RPC, so watching a session never changes what the agent or
 * the app sees of it. Reconnects with backoff, also after a server-side disconnect; listeners see
 * `connect` again after a reconnect.
 *
 * @throws {SdkError} `transport.unauthorized` when the handshake is refused, `transport.network`
 *   when no connection is made within `timeoutMs`.
 */
export function connectUserSocket(serverUrl: string, token: string, timeoutMs = 20_000): Promise<Socket> {
  const socket = socketIo()(serverUrl, {
    path: '/v1/updates',
    transports: ['websocket'],
    auth: { token, clientType: 'user-scoped', happyClient: 'cli-coding-session/happy-session' },
    reconnection: true,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 5000,
  });
  return new Promise((resolve, reject) => {
    const fail = (error: SdkError): void => {
      clearTimeout(timer);
      socket.off('connect', onConnect);
      socket.off('connect_error', onError);
      socket.disconnect();
      reject(error);
    };
    const onConnect = (): void => {
      clearTimeout(timer);
      socket.off('connect_error', onError);
      resolve(socket);
    };
    const onError = (error: Error): void => {
      if (!AUTH_REFUSALS.has(error.message)) return; // anything else: socket.io retries by itself
      fail(
        new SdkError('transport.unauthorized', `The server refused the socket: ${error.message}.`, {
          hint: REFUSED_TOKEN_HINT,
        }),
      );
    };
    const timer = setTimeout(
      () =>
        fail(
          new SdkError('transport.network', `No socket connection to ${serverUrl} within ${timeoutMs} ms.`, {
            hint: 'check that the server is running and --server / HAPPY_SERVER_URL points at it',
          }),
        ),
      timeoutMs,
    );
    socket.once('connect', onConnect);
    socket.on('connect_error', onError);
    // socket.io does not reconnect by itself after a server-side disconnect (the agent's
    // SessionSocket does the same); our own disconnect() says 'io client disconnect' instead.
    socket.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') socket.connect();
    });
  });
}
