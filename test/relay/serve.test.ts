import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runRelayServer, startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { createSession, http, signIn, uploadPath } from './helpers.js';

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

describe('runRelayServer draining on SIGTERM', () => {
  it('lets an upload under way finish, then exits 0 with the WAL checkpointed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'relay-drain-'));
    dirs.push(dataDir);
    const processHandle = spawn(tsx, [child, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      processHandle.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve(stdout.trim());
      });
      processHandle.once('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    const exited = new Promise<number | null>((resolve) =>
      processHandle.once('exit', (code) => resolve(code)),
    );
    const relay = { url } as Relay;
    const { token } = await signIn(relay);
    const sessionId = (await createSession(relay, token)).id as string;
    const path = await uploadPath(relay, token, sessionId, 1024);

    // `Expect: 100-continue`: the relay has taken the request when the client is told to go on.
    const body = Buffer.alloc(1024, 7);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const put = request(`${url}${path}`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          'content-length': String(body.length),
          expect: '100-continue',
        },
      });
      put.on('continue', () => {
        processHandle.kill('SIGTERM');
        put.end(body);
      });
      put.on('response', (res) => {
        let text = '';
        res.on('data', (part: Buffer) => (text += part.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      put.on('error', reject);
    });
    expect(answer).toEqual({ status: 200, text: '{"ok":true}' });
    expect(await exited).toBe(0);
    const wal = join(dataDir, 'relay.sqlite-wal');
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);

    // What the drained request stored is there after a restart.
    const again = await startRelay({ dataDir });
    try {
      expect((await http(again, token).bytes(path)).bytes.equals(body)).toBe(true);
    } finally {
      await again.close();
    }
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
