import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { RunAckSchema } from './runProtocol.js';
import type { RunAck, RunRequestBody } from './runProtocol.js';
import { onSocketLines } from './socketLines.js';

/**
 * A nested run's connection to the outer run's socket (docs/cli.md, "Nesting"). Each request
 * resolves with the outer run's answer; once the connection is gone, every request rejects.
 */
export class RunClient {
  private seq = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (ack: RunAck) => void; reject: (e: Error) => void }
  >();
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    onSocketLines(socket, (line) => {
      let ack: RunAck;
      try {
        ack = RunAckSchema.parse(JSON.parse(line));
      } catch {
        return;
      }
      const waiter = this.waiting.get(ack.seq);
      this.waiting.delete(ack.seq);
      waiter?.resolve(ack);
    });
    const fail = (error: Error): void => {
      this.failure ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(this.failure);
      this.waiting.clear();
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the outer happy-session run closed the connection')));
  }

  /** Connects to the outer run's socket; rejects when nothing listens there. */
  static open(path: string): Promise<RunClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RunClient(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends one request and resolves with its answer. */
  request(body: RunRequestBody): Promise<RunAck> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.socket.write(`${JSON.stringify({ ...body, seq })}\n`);
    });
  }

  /** True once the connection failed or closed. */
  get broken(): boolean {
    return this.failure !== undefined;
  }

  close(): void {
    this.socket.end();
  }
}
