import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import type { Socket } from 'socket.io-client';
import { randomBytes } from 'happy-session/internal';
import { startRelay } from 'happy-session-relay';
import type { Relay, RelayOptions } from 'happy-session-relay';
import { HappyServerTransport } from 'happy-session/node';
import { mintToken, HappyHttp } from 'happy-session/internal';
import type { Credentials } from 'happy-session/node';
import type { RecordKey } from 'happy-session/crypto';
import type { SessionMessage } from 'happy-session';
import { SessionReader } from 'happy-session';

/** A relay on a free port plus a fresh account (master secret and token). */
export interface RelayAccount {
  readonly relay: Relay;
  readonly masterSecret: Uint8Array;
  readonly token: string;
  readonly credentials: Credentials;
  readonly http: HappyHttp;
}

/** Starts an in-process relay and creates an account on it by the challenge flow. */
export async function relayWithAccount(options: RelayOptions = {}): Promise<RelayAccount> {
  const relay = await startRelay(options);
  const account = await accountOn(relay.url);
  return { relay, ...account };
}

/** A fresh account on the server at `url`. */
export async function accountOn(url: string): Promise<Omit<RelayAccount, 'relay'>> {
  const masterSecret = randomBytes(32);
  const token = await mintToken(new HappyHttp({ serverUrl: url }), masterSecret);
  return {
    masterSecret,
    token,
    credentials: { kind: 'master', masterSecret, token },
    http: new HappyHttp({ serverUrl: url, token }),
  };
}

/** What the relay holds for a session of `account`, read with a transport of its own (no proxy in between). */
export async function storedOnRelay(
  account: RelayAccount,
  sessionId: string,
  key: RecordKey,
): Promise<SessionMessage[]> {
  const transport = new HappyServerTransport({
    serverUrl: account.relay.url,
    token: account.token,
    sessionId,
  });
  try {
    return await new SessionReader({ transport, key }).messages();
  } finally {
    await transport.close({ end: false, archive: false });
  }
}

/** A user-scoped socket acting as the Happy app. Resolves once connected. */
export async function appSocket(url: string, token: string): Promise<Socket> {
  const socket = io(url, {
    path: '/v1/updates',
    transports: ['websocket'],
    auth: { token, clientType: 'user-scoped' },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

/** A temporary directory, removed by the returned function. */
export function tempDir(prefix = 'happy-session-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
