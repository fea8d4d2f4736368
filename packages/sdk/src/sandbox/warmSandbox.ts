import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { OutputStream, ProcessExit } from './processRun.js';
import type { RuntimeConfig, RuntimeManager } from './runtime.js';
import { SUPERVISOR_SOURCE } from './supervisor.js';

/** How the proxy's user name names a command, as the runtime spells it in URLs and in `socat`. */
interface ProxyTag {
  readonly raw: string;
  readonly pct: string;
}

/** What one command of a warm sandbox needs. */
export interface WarmExecOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  readonly onOutput: (text: string, stream: OutputStream) => void;
  /** The runtime's key for this command's refused connections (`getViolationsForCommand`). */
  readonly commandId: string;
  /** Output kept for the result; default 256 KiB. */
  readonly keepBytes?: number;
}

interface Running {
  readonly onFrame: (frame: Frame) => void;
  readonly onEnd: (why: string) => void;
}

interface Frame {
  readonly id?: string;
  readonly s?: 'o' | 'e';
  readonly d?: string;
  readonly exit?: number | null;
  readonly signal?: NodeJS.Signals | null;
  readonly ready?: boolean;
}

/** How long a sandbox may take to start before it counts as failed. */
const START_TIMEOUT_MS = 30_000;

/**
 * One bubblewrap sandbox kept running for many commands (docs/sandbox.md, "The warm sandbox"): the
 * namespaces, mounts, seccomp filter and proxy bridges are made once, by the runtime's own wrap of
 * a small supervisor ({@link SUPERVISOR_SOURCE}), and every command runs inside it in a process
 * group of its own. Commands may run at once. When the sandbox ends (killed, or a command killed
 * its supervisor), the commands still running end with it and {@link dead} turns true.
 */
export class WarmSandbox {
  private readonly running = new Map<string, Running>();
  private buffered = '';
  private readonly decoder = new StringDecoder('utf8');
  private stderr = '';
  private ended: string | undefined;
  /** Commands started here and not yet ended. */
  inflight = 0;

  private constructor(private readonly child: ChildProcessByStdio<Writable, Readable, Readable>) {
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4096);
    });
    child.stdin.on('error', () => undefined);
    child.once('exit', (code, signal) => this.end(`the sandbox ended (${signal ?? `status ${code}`})`));
  }

  /**
   * Starts a sandbox with `filesystem` and `network` through the runtime's wrap. Resolves once the
   * supervisor inside is ready; rejects with what bubblewrap printed when it is not.
   */
  static async start(options: {
    readonly manager: RuntimeManager;
    readonly network: RuntimeConfig['network'];
    readonly filesystem: RuntimeConfig['filesystem'];
    /** A directory of the host's, readable inside, for the supervisor's file. */
    readonly scratch: string;
    readonly cwd: string;
    /** Where bubblewrap and socat are looked for: the `PATH` of the shell's environment. */
    readonly path: string | undefined;
  }): Promise<WarmSandbox> {
    const file = join(options.scratch, 'supervisor.cjs');
    await writeFile(file, SUPERVISOR_SOURCE);
    const warmId = newCommandId();
    const tag = proxyTag(warmId);
    const wrapped = await options.manager.wrapWithSandbox(
      `exec ${quote(process.execPath)} ${quote(file)} ${quote(JSON.stringify(tag))}`,
      'bash',
      { network: options.network, filesystem: options.filesystem },
      undefined,
      { commandId: warmId, commandText: 'happy-session sandbox supervisor' },
    );
    const child = spawn('/bin/sh', ['-c', wrapped], {
      cwd: options.cwd,
      // The runtime's own variables come from bubblewrap; the commands get the host's from `exec`.
      env: { PATH: options.path ?? '/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const sandbox = new WarmSandbox(child);
    await sandbox.ready();
    return sandbox;
  }

  /** True once the sandbox ended: a command then needs a new one. */
  get dead(): boolean {
    return this.ended !== undefined;
  }

  /** The host PID of the sandbox (bubblewrap's process group leader). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Runs `bash -c command` inside. Never rejects: a command the sandbox could not finish (it
   * ended meanwhile) resolves with `exitCode: null`, `signal: 'SIGKILL'` and the reason in its
   * error output.
   */
  exec(command: string, options: WarmExecOptions): Promise<ProcessExit> {
    const keep = options.keepBytes ?? 256 * 1024;
    const id = options.commandId;
    return new Promise((resolve) => {
      let output = '';
      let stderr = '';
      let aborted = false;
      const decoders = { o: new StringDecoder('utf8'), e: new StringDecoder('utf8') };
      const take = (text: string, stream: OutputStream): void => {
        if (text === '') return;
        output = cut(output + text, keep);
        if (stream === 'stderr') stderr = cut(stderr + text, keep);
        options.onOutput(text, stream);
      };
      const kill = (): void => {
        aborted = true;
        this.send({ op: 'kill', id });
      };
      const settle = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
        this.running.delete(id);
        this.inflight--;
        options.signal.removeEventListener('abort', kill);
        resolve({ exitCode, signal, aborted, output, stderr });
      };
      this.inflight++;
      this.running.set(id, {
        onFrame: (frame) => {
          if (frame.s && frame.d !== undefined) {
            const stream = frame.s === 'o' ? 'stdout' : 'stderr';
            take(decoders[frame.s].write(Buffer.from(frame.d, 'base64')), stream);
          } else if (frame.exit !== undefined) {
            settle(frame.exit, frame.signal ?? null);
          }
        },
        onEnd: (why) => {
          take(`[${why} while the command ran]\n`, 'stderr');
          settle(null, 'SIGKILL');
        },
      });
      if (this.ended) {
        this.running.get(id)!.onEnd(this.ended);
        return;
      }
      this.send({
        op: 'run',
        id,
        command,
        cwd: options.cwd,
        env: options.env,
        tag: proxyTag(id),
      });
      if (options.signal.aborted) kill();
      else options.signal.addEventListener('abort', kill, { once: true });
    });
  }

  /** Ends the sandbox and every command in it. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await exited;
  }

  private ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        void this.stop();
        reject(new Error(`the sandbox did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      this.readyWaiter = (error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
    });
  }

  private readyWaiter: ((error?: Error) => void) | undefined;

  private read(chunk: Buffer): void {
    this.buffered += this.decoder.write(chunk);
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      let frame: Frame;
      try {
        frame = JSON.parse(line) as Frame;
      } catch {
        continue;
      }
      if (frame.ready) {
        this.readyWaiter?.();
        this.readyWaiter = undefined;
      } else if (frame.id !== undefined) {
        this.running.get(frame.id)?.onFrame(frame);
      }
    }
  }

  private end(why: string): void {
    if (this.ended) return;
    this.ended = why;
    const detail = this.stderr.trim();
    this.readyWaiter?.(new Error(detail === '' ? why : `${why}: ${detail}`));
    this.readyWaiter = undefined;
    for (const command of [...this.running.values()]) command.onEnd(why);
  }

  private send(request: Record<string, unknown>): void {
    if (this.ended || this.child.stdin.destroyed) return;
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
  }
}

/** A key for the runtime's violation store: letters and digits, 12 of them (base64 without padding). */
export function newCommandId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(12)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The proxy user name's suffix for `commandId`, as the runtime encodes it (base64 of the key). */
function proxyTag(commandId: string): ProxyTag {
  const raw = Buffer.from(commandId).toString('base64');
  return { raw, pct: encodeURIComponent(raw) };
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function cut(text: string, keep: number): string {
  return text.length > keep ? text.slice(text.length - keep) : text;
}
