import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runRelayServer } from '../../packages/relay/src/index.js';

const child = fileURLToPath(new URL('./fixtures/serveChild.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.each(['SIGTERM', 'SIGINT'] as const)('runRelayServer and %s', (signal) => {
  it('serves until the signal, then closes everything so the process exits by itself with 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'relay-serve-'));
    dirs.push(dataDir);
    const processHandle = spawn(tsx, [child, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    processHandle.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      processHandle.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve(stdout.trim());
      });
      processHandle.once('exit', (code) => reject(new Error(`child exited early with ${code}: ${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/v1/sessions`)).status).toBe(401);

    const exited = new Promise<number | null>((resolve) =>
      processHandle.once('exit', (code) => resolve(code)),
    );
    processHandle.kill(signal);
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });
});

describe('runRelayServer in process', () => {
  it('installs its signal handlers and removes them on close', async () => {
    const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
    const relay = await runRelayServer();
    expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
    expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
    await relay.close();
    expect(process.listenerCount('SIGINT')).toBe(before.int);
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
  });
});
