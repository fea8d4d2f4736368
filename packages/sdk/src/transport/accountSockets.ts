import { AccountSocket } from './accountSocket.js';
import type { AccountSocketOptions } from './accountSocket.js';

/** The open account sockets of this process, by server and account. */
const open = new Map<string, AccountSocket>();

/**
 * The process's one {@link AccountSocket} for `account` on `options.serverUrl`, opened on first use
 * (docs/transport.md, "One socket per account"). `account` names the account, not the token: two
 * sessions of one account share the socket even when they hold different tokens. A socket whose
 * handshake the server refused is not handed out again, so the next session tries afresh; one whose
 * last session left is closed and forgotten.
 */
export function accountSocket(account: string, options: AccountSocketOptions): AccountSocket {
  const key = `${options.serverUrl}\n${account}`;
  const current = open.get(key);
  if (current && !current.refusal) return current;
  const socket = new AccountSocket(options, () => {
    if (open.get(key) === socket) open.delete(key);
  });
  socket.onRefusal(() => {
    if (open.get(key) === socket && !socket.connected && !socket.socket.active) open.delete(key);
  });
  open.set(key, socket);
  return socket;
}

/** How many account sockets this process holds open (for tests and benchmarks). */
export function openAccountSockets(): number {
  return open.size;
}
