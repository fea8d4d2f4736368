import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { HttpExchange, HttpExchangeAnswer } from './httpExchange.js';
import { isDefaultHttpExchange, useHttpExchange } from './httpExchange.js';

// One pool per scheme for the process, as the global fetch has: consecutive requests to a server
// reuse an idle connection. Idle sockets do not keep the process alive.
const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

/**
 * HTTP/1.1 through `node:http` / `node:https` with keep-alive connections. Unlike Node's `fetch` it
 * tells when a request has left the process (`onSent` comes with the request's `finish`, once its
 * bytes are written to the socket), which the outbox waits for before it seals the next batch; it
 * also costs less per request (no web streams). See docs/performance.md, "Write throughput".
 */
export const nodeHttpExchange: HttpExchange = (request) =>
  new Promise<HttpExchangeAnswer>((resolve, reject) => {
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers['Content-Length'] = Buffer.byteLength(request.body);
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      { method: request.method, headers, agent: secure ? httpsAgent : httpAgent, signal: request.signal },
      (res) => readAnswer(res, resolve, reject),
    );
    req.on('error', reject);
    if (request.onSent) req.end(request.body, request.onSent);
    else req.end(request.body);
  });

function readAnswer(
  res: IncomingMessage,
  resolve: (answer: HttpExchangeAnswer) => void,
  reject: (error: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('error', reject);
  res.on('end', () => {
    const retryAfter = res.headers['retry-after'];
    resolve({
      status: res.statusCode ?? 0,
      retryAfter: retryAfter === undefined ? null : String(retryAfter),
      server: typeof res.headers.server === 'string' ? res.headers.server : null,
      text: Buffer.concat(chunks).toString('utf8'),
    });
  });
  // A connection that closes mid-answer: the request may or may not have run.
  res.on('close', () => {
    if (!res.complete) reject(new Error('the connection closed before the whole answer arrived'));
  });
}

/**
 * Makes {@link nodeHttpExchange} what requests go through, unless a program installed an exchange
 * of its own. `happy-session/node` calls it when it loads, and so does every path that reaches a
 * Happy server (`connect()`, `Account.open()`).
 */
export function installNodeHttpExchange(): void {
  if (isDefaultHttpExchange()) useHttpExchange(nodeHttpExchange);
}
