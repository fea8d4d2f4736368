import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';

/**
 * Calls `onLine` for each line `socket` sends. readline passes the socket's errors on to its
 * interface, where an error nobody listens for is thrown out of the process: a peer killed with
 * lines it had not read resets the connection (ECONNRESET), and that must end the lines as a
 * close does. The socket's own `error` and `close` listeners say what the loss means.
 */
export function onSocketLines(socket: Socket, onLine: (line: string) => void): void {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  lines.on('line', onLine);
  lines.on('error', () => lines.close());
}
