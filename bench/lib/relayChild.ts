import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RelayLimits } from '../../packages/relay/src/index.js';
import { tsxNodeArgs } from './node.js';

const SCRIPT = fileURLToPath(new URL('./relayProcess.ts', import.meta.url));

/**
 * The embedded relay in a child process. Benchmarks keep the server out of their own process so
 * that its CPU does not share the measured event loop and its memory does not count in the
 * client's RSS, as with a real Happy server.
 */
export class RelayChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /**
   * Starts the relay with its SQLite database (WAL, as `happy-session serve` runs it) in `dataDir`,
   * with the benchmark's `limits` (the relay's defaults for each one not given).
   */
  static async start(dataDir: string, limits: RelayLimits = {}): Promise<RelayChild> {
    const child = spawn(process.execPath, [...tsxNodeArgs(), SCRIPT, dataDir, JSON.stringify(limits)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /ready (\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the relay exited with ${code}: ${stderr}`)));
    });
    return new RelayChild(child, url);
  }

  /** The child's process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGTERM (the relay closes cleanly); resolves when the process is gone. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
