import nacl from 'tweetnacl';
import { io, type Socket } from 'socket.io-client';
import type { Relay } from 'happy-session-relay';

/** Standard padded base64, as on the wire. */
export function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** An account made the way the app does it: an Ed25519 key pair and the signed challenge (§1.2). */
export interface TestAccount {
  token: string;
  keyPair: nacl.SignKeyPair;
}

/** A JSON value whose shape the test asserts. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
export type Json = any;

/** A parsed HTTP answer. */
export interface HttpAnswer {
  status: number;
  body: Json;
  headers: Headers;
}

async function answer(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, headers: response.headers };
}

/** A tiny HTTP client for one relay and (optionally) one bearer token. */
export function http(relay: Relay, token?: string) {
  const headers = (extra: Record<string, string> = {}): Record<string, string> =>
    token === undefined ? extra : { ...extra, authorization: `Bearer ${token}` };
  return {
    get: async (path: string) => answer(await fetch(`${relay.url}${path}`, { headers: headers() })),
    post: async (path: string, body?: unknown) =>
      answer(
        await fetch(`${relay.url}${path}`, {
          method: 'POST',
          headers: body === undefined ? headers() : headers({ 'content-type': 'application/json' }),
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ),
    put: async (path: string, bytes: Uint8Array) =>
      answer(
        await fetch(`${relay.url}${path}`, {
          method: 'PUT',
          headers: headers({ 'content-type': 'application/octet-stream' }),
          body: new Blob([new Uint8Array(bytes)]),
        }),
      ),
    delete: async (path: string) =>
      answer(await fetch(`${relay.url}${path}`, { method: 'DELETE', headers: headers() })),
    /** GET returning the raw bytes. */
    bytes: async (url: string) => {
      const response = await fetch(url.startsWith('http') ? url : `${relay.url}${url}`, {
        headers: headers(),
      });
      return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
    },
  };
}

/** Signs a fresh challenge with `keyPair` and exchanges it for a token. */
export async function signIn(relay: Relay, keyPair = nacl.sign.keyPair()): Promise<TestAccount> {
  const challenge = nacl.randomBytes(32);
  const signature = nacl.sign.detached(challenge, keyPair.secretKey);
  const result = await http(relay).post('/v1/auth', {
    publicKey: b64(keyPair.publicKey),
    challenge: b64(challenge),
    signature: b64(signature),
  });
  if (result.status !== 200)
    throw new Error(`sign-in failed: ${result.status} ${JSON.stringify(result.body)}`);
  return { token: result.body.token as string, keyPair };
}

/** Creates a session with a random tag and returns its JSON. */
export async function createSession(
  relay: Relay,
  token: string,
  extra: Record<string, unknown> = {},
): Promise<Json> {
  const result = await http(relay, token).post('/v1/sessions', {
    tag: `tag-${Math.random().toString(36).slice(2)}`,
    metadata: b64(nacl.randomBytes(48)),
    ...extra,
  });
  if (result.status !== 200) throw new Error(`create failed: ${result.status}`);
  return result.body.session;
}

/**
 * Asks for an upload URL (`request-upload`, §8.1) and returns its path: the only name the relay
 * takes a PUT for.
 */
export async function uploadPath(relay: Relay, token: string, sessionId: string, size = 16): Promise<string> {
  const result = await http(relay, token).post(`/v1/sessions/${sessionId}/attachments/request-upload`, {
    filename: 'blob',
    size,
  });
  if (result.status !== 200) throw new Error(`request-upload failed: ${result.status}`);
  return new URL(result.body.uploadUrl as string).pathname;
}

/** Socket handshake auth (§2.1). */
export interface SocketAuth {
  token?: string;
  clientType?: 'session-scoped' | 'user-scoped' | 'machine-scoped';
  sessionId?: string;
  machineId?: string;
  appState?: 'active' | 'background';
}

const openSockets = new Set<Socket>();

function socketFor(relay: Relay, auth: SocketAuth): Socket {
  const socket = io(relay.url, {
    path: '/v1/updates',
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    auth: { ...auth },
  });
  openSockets.add(socket);
  return socket;
}

/** Opens a socket and waits until it is connected. */
export function connect(relay: Relay, auth: SocketAuth): Promise<Socket> {
  const socket = socketFor(relay, auth);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => reject(error));
  });
}

/** Opens a socket that must be refused and returns the `connect_error` message. */
export function connectError(relay: Relay, auth: SocketAuth): Promise<string> {
  const socket = socketFor(relay, auth);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => reject(new Error('connected although it should have been refused')));
    socket.once('connect_error', (error) => resolve(error.message));
  });
}

/** Closes every socket the tests opened. */
export function closeSockets(): void {
  for (const socket of openSockets) socket.close();
  openSockets.clear();
}

/** Records every payload of `event` on `socket`, in order. */
export function record<T = Json>(socket: Socket, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (payload: T) => seen.push(payload));
  return seen;
}

/** Resolves with the next payload of `event` on `socket` that satisfies `match`. */
export function next<T = Json>(
  socket: Socket,
  event: string,
  match: (payload: T) => boolean = () => true,
): Promise<T> {
  return new Promise((resolve) => {
    const listener = (payload: T) => {
      if (!match(payload)) return;
      socket.off(event, listener);
      resolve(payload);
    };
    socket.on(event, listener);
  });
}

/**
 * Waits until the relay has processed everything `socket` sent before: events of one socket are
 * handled in order, and the relay's handlers finish synchronously, so the `ping` ack comes back
 * only after them.
 */
export async function settle(socket: Socket): Promise<void> {
  await socket.emitWithAck('ping');
}
