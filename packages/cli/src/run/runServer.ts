import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCuid } from 'happy-session/protocol';
import type { Logger } from 'happy-session';
import { RunRequestSchema } from './runProtocol.js';
import type { RunAck, RunRequest } from './runProtocol.js';
import { onSocketLines } from './socketLines.js';
import type { StepTree } from './stepTree.js';

/** Asks the session's permission gate whether a step may run; resolves with the outcome. */
export type AskStep = (stepId: string) => Promise<'allow' | 'deny' | 'cancelled'>;

/** Attaches a file to a step (with its progress shown by the outer run); rejects with why not. */
export type AttachToStep = (stepId: string, path: string) => Promise<void>;

/** What the outer run does for nested runs besides writing their output. */
export interface RunServerHandlers {
  readonly ask: AskStep;
  readonly attach: AttachToStep;
}

const ABANDONED = 'the nested happy-session run stopped reporting before its command ended';

/**
 * The outermost run's local socket (a Unix socket in a private directory, a named pipe on
 * Windows): nested runs send their steps, output and exit status here, one JSON line each, and the
 * outer run writes them into its one stream (docs/cli.md, "Nesting"). Each request is answered
 * once it is written; a malformed or refused one gets an error answer and changes nothing. A
 * connection that closes with steps still running ends them with an error.
 */
export class RunServer {
  private readonly connections = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** The socket's path, for the nested runs' environment. */
    readonly path: string,
    private readonly dir: string | undefined,
  ) {}

  static async listen(
    tree: StepTree,
    token: string,
    handlers: RunServerHandlers,
    logger: Logger,
  ): Promise<RunServer> {
    let dir: string | undefined;
    let path: string;
    if (process.platform === 'win32') {
      path = `\\\\.\\pipe\\happy-session-run-${process.pid}-${Date.now()}`;
    } else {
      dir = mkdtempSync(join(tmpdir(), 'happy-run-'));
      path = join(dir, 'run.sock');
    }
    const server = createServer();
    const run = new RunServer(server, path, dir);
    server.on('connection', (socket) => run.serve(socket, tree, token, handlers, logger));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    return run;
  }

  /** Stops listening; steps of connections still open are ended as abandoned. */
  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private serve(
    socket: Socket,
    tree: StepTree,
    token: string,
    handlers: RunServerHandlers,
    logger: Logger,
  ): void {
    this.connections.add(socket);
    const mine = new Set<string>();
    const answer = (ack: RunAck): void => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(ack)}\n`);
    };
    // Requests are handled one at a time, in order: an ask waits, and the output after it waits too.
    let queue = Promise.resolve();
    onSocketLines(socket, (line) => {
      queue = queue.then(async () => {
        let request: RunRequest;
        try {
          request = RunRequestSchema.parse(JSON.parse(line));
        } catch {
          logger.warn('a nested run sent a malformed request', { line: line.slice(0, 200) });
          answer({ t: 'ack', seq: -1, error: 'malformed request' });
          return;
        }
        answer(await this.handle(request, mine, tree, token, handlers));
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.connections.delete(socket);
      void queue.then(() => {
        for (const id of mine) tree.abandon(id, ABANDONED);
      });
    });
  }

  private async handle(
    request: RunRequest,
    mine: Set<string>,
    tree: StepTree,
    token: string,
    { ask, attach }: RunServerHandlers,
  ): Promise<RunAck> {
    const ack = { t: 'ack', seq: request.seq } as const;
    if (request.t === 'start') {
      if (request.token !== token) return { ...ack, error: 'wrong token' };
      if (!isCuid(request.id)) return { ...ack, error: 'a step id must be a cuid2' };
      try {
        tree.start(request);
      } catch (error) {
        return { ...ack, error: errorText(error) };
      }
      mine.add(request.id);
      if (!request.ask) return ack;
      const decision = await ask(request.id);
      if (decision !== 'allow') mine.delete(request.id);
      return { ...ack, decision };
    }
    if (!mine.has(request.id)) return { ...ack, error: `step ${request.id} is not one of this run's` };
    const step = tree.get(request.id);
    if (request.t === 'output') {
      step?.log.push(request.text);
      return ack;
    }
    if (request.t === 'attach') {
      try {
        await attach(request.id, request.path);
        return ack;
      } catch (error) {
        return { ...ack, error: errorText(error) };
      }
    }
    mine.delete(request.id);
    tree.end(request.id, {
      code: request.code,
      signal: request.signal,
      ...(request.spawnError !== undefined ? { spawnError: request.spawnError } : {}),
    });
    return ack;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
