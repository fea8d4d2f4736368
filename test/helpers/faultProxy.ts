import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { RawData } from 'ws';

/** A request that reached the proxy. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** When it arrived (unix ms). */
  at: number;
}

/** What the proxy does with one request: pass it on, answer it itself, or drop the connection. */
export type Verdict =
  | {
      kind: 'forward';
      rewrite?: (status: number, body: Buffer) => Buffer;
      /** Holds the server's answer this long before passing it on: a server slow to acknowledge. */
      delayMs?: number;
    }
  | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'drop' };

/** Decides whether one websocket message from the server reaches the client (socket.io text packets). */
export type FrameFilter = (text: string) => boolean;

/**
 * An HTTP proxy in front of the relay that can fail chosen requests (a 5xx, a 429 with
 * `Retry-After`, a dropped connection) and rewrite answers. It forwards websocket upgrades too (the
 * socket.io connection), and can drop chosen messages the server sends on them: a lost live hint.
 * Forwarded requests keep the proxy's `Host`, so the relay builds its upload URLs on the proxy too.
 */
export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  url = '';
  /** Which server messages pass; set it at any time. Default: all of them. */
  frames: FrameFilter = () => true;
  private server: Server | undefined;
  private holding: { from: FrameFilter; held: Array<() => void> | undefined } | undefined;
  private readonly sockets = new WebSocketServer({ noServer: true });
  private readonly open = new Set<WebSocket>();

  constructor(
    private readonly target: string,
    /** What to do with each HTTP request; may be replaced at any time. */
    public decide: (request: SeenRequest, index: number) => Verdict = () => ({ kind: 'forward' }),
  ) {}

  async start(): Promise<this> {
    // A client that gives up mid-body (an aborted upload) ends that request here, nothing more.
    this.server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(req, socket, head),
    );
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const ws of this.open) ws.terminate();
    this.sockets.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /**
   * Holds what clients send on their websockets from the first message `from` matches on (that
   * message and every later one, in order) until the returned function is called: a server slow
   * to read what a client sent after a point, or a slow uplink.
   */
  holdClientFrames(from: FrameFilter): () => void {
    const hold: { from: FrameFilter; held: Array<() => void> | undefined } = { from, held: undefined };
    this.holding = hold;
    return () => {
      if (this.holding === hold) this.holding = undefined;
      for (const send of hold.held ?? []) send();
    };
  }

  /** Requests seen with this method whose path contains `part`. */
  count(method: string, part: string): number {
    return this.seen.filter((r) => r.method === method && r.url.includes(part)).length;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const target = new URL(req.url ?? '/', this.target);
    target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
    const upstream = new WebSocket(target);
    upstream.once('error', () => socket.destroy());
    upstream.once('open', () => {
      this.sockets.handleUpgrade(req, socket, head, (client) => {
        this.open.add(client).add(upstream);
        const relay = (
          from: WebSocket,
          to: WebSocket,
          pass: (data: RawData, send: () => void) => void,
        ): void => {
          from.on('message', (data, isBinary) => {
            pass(data, () => {
              if (to.readyState === WebSocket.OPEN) to.send(data, { binary: isBinary });
            });
          });
          from.on('close', () => {
            this.open.delete(from);
            to.close();
          });
          from.on('error', () => to.terminate());
        };
        relay(client, upstream, (data, send) => this.fromClient(data, send));
        relay(upstream, client, (data, send) => {
          if (this.frames(dataText(data))) send();
        });
      });
    });
  }

  private fromClient(data: RawData, send: () => void): void {
    const hold = this.holding;
    if (hold && (hold.held || hold.from(dataText(data)))) (hold.held ??= []).push(send);
    else send();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks),
      at: Date.now(),
    };
    this.seen.push(seen);
    const verdict = this.decide(seen, this.seen.length - 1);
    if (verdict.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (verdict.kind === 'answer') {
      res.writeHead(verdict.status, { 'content-type': 'application/json', ...verdict.headers });
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
        const pass = (): void => {
          res.writeHead(status, headers);
          res.end(body);
        };
        if (verdict.delayMs) setTimeout(pass, verdict.delayMs);
        else pass();
      });
    });
    upstream.on('error', () => res.destroy());
    upstream.end(seen.body);
  }
}

function dataText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
