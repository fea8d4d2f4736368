import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request that reached the proxy. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the proxy does with one request: pass it on, answer it itself, or drop the connection. */
export type Verdict =
  | { kind: 'forward'; rewrite?: (status: number, body: Buffer) => Buffer }
  | { kind: 'answer'; status: number; body: unknown }
  | { kind: 'drop' };

/**
 * An HTTP proxy in front of the relay that can fail chosen requests (a 5xx, a 4xx, a dropped
 * connection) and rewrite answers. Forwarded requests keep the proxy's `Host`, so the relay builds
 * its upload URLs on the proxy too.
 */
export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  url = '';
  private server: Server | undefined;

  constructor(
    private readonly target: string,
    private readonly decide: (request: SeenRequest, index: number) => Verdict,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Requests seen with this method whose path contains `part`. */
  count(method: string, part: string): number {
    return this.seen.filter((r) => r.method === method && r.url.includes(part)).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    this.seen.push(seen);
    const verdict = this.decide(seen, this.seen.length - 1);
    if (verdict.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (verdict.kind === 'answer') {
      res.writeHead(verdict.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(verdict.body));
      return;
    }
    const target = new URL(seen.url, this.target);
    const upstream = httpRequest(target, { method: seen.method, headers: seen.headers }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (c: Buffer) => parts.push(c));
      answer.on('end', () => {
        let body: Buffer = Buffer.concat(parts);
        const status = answer.statusCode ?? 502;
        if (verdict.rewrite) body = verdict.rewrite(status, body);
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(status, headers);
        res.end(body);
      });
    });
    upstream.on('error', () => res.destroy());
    upstream.end(seen.body);
  }
}
