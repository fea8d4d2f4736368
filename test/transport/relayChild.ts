import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/relayProcess.ts', import.meta.url));

/** A relay running in its own process group, so SIGKILL takes npx, tsx and node down together. */
export class RelayChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(port: number, dataDir: string): Promise<RelayChild> {
    const child = spawn('npx', ['tsx', FIXTURE, String(port), dataDir], {
      detached: true,
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
      child.once('exit', (code) => reject(new Error(`relay exited with ${code}: ${stderr}`)));
    });
    return new RelayChild(child, url);
  }

  /** SIGKILL to the whole process group; resolves when the process is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    process.kill(-this.child.pid!, 'SIGKILL');
    await exited;
  }
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
