import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from 'happy-session-relay';
import { createSession, http, signIn, uploadPath } from './helpers.js';

/**
 * The relay as a user runs it (`runRelayServer` in its own process), fed bodies far larger than it
 * takes. Its memory is read from the kernel: VmHWM, the peak RSS, reset before the attack.
 */
const CHILD = fileURLToPath(new URL('./fixtures/serveChild.ts', import.meta.url));
const MB = 1000 * 1000;
const MIB = 1024 * 1024;

let child: ChildProcess;
let relay: Relay;
let dataDir: string;

function status(field: 'VmRSS' | 'VmHWM'): number {
  const text = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)![1]) * 1024;
}

/** What one flooding request saw: the answer, and how much of its body had left when it came. */
interface Flood {
  readonly status: number;
  readonly body: unknown;
  readonly sentWhenAnswered: number;
}

/**
 * Sends `total` bytes of zeros as fast as the connection takes them, with that `Content-Length`,
 * and stops sending as soon as the answer arrives.
 */
function flood(method: string, path: string, headers: Record<string, string>, total: number): Promise<Flood> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(MIB);
    const req = request(`${relay.url}${path}`, {
      method,
      headers: { ...headers, 'content-length': String(total) },
    });
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const sentWhenAnswered = req.socket?.bytesWritten ?? sent;
      let text = '';
      res.on('data', (part: Buffer) => (text += part.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sentWhenAnswered }));
    });
    // Writes after the relay closed the connection fail; only an error before the answer counts.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = (): void => {
      while (!answered && sent < total) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!req.write(part)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'relay-memory-'));
  child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), CHILD, dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (part: Buffer) => {
      out += part.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`relay exited with ${code}`)));
  });
  relay = { url } as Relay;
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a relay fed oversized bodies (child process, RSS from /proc)', () => {
  it('answers 4 unauthenticated 100 MB POSTs with 401 and 3 authenticated 100 MiB PUTs with 413 before reading them, growing RSS by less than 50 MB', async () => {
    const { token } = await signIn(relay);
    const sessionId = (await createSession(relay, token)).id as string;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' };
    const json = { 'content-type': 'application/json' };
    // Warm up every path once (code loaded, JIT, buffers), so what is measured is the bodies.
    await flood('POST', '/v3/sessions/x/messages', json, MB);
    await flood('PUT', await uploadPath(relay, token, sessionId), auth, 100 * MIB);
    expect(
      (await http(relay, token).put(await uploadPath(relay, token, sessionId), new Uint8Array(1024))).status,
    ).toBe(200);

    writeFileSync(`/proc/${child.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
    const before = status('VmRSS');
    const paths = await Promise.all([0, 1, 2].map(() => uploadPath(relay, token, sessionId, 1024)));
    const answers = await Promise.all([
      ...[0, 1, 2, 3].map(() => flood('POST', '/v3/sessions/x/messages', json, 100 * MB)),
      ...paths.map((path) => flood('PUT', path, auth, 100 * MIB)),
    ]);
    const peak = status('VmHWM');

    expect(answers.map((a) => [a.status, a.body])).toEqual([
      ...Array.from({ length: 4 }, () => [401, { error: 'Missing authorization header' }]),
      ...Array.from({ length: 3 }, () => [413, { error: 'File too large (max 10MB)' }]),
    ]);
    // Each answer came while most of its body had not even left the client.
    for (const a of answers) expect(a.sentWhenAnswered).toBeLessThan(25 * MB);
    console.log('relay RSS', {
      beforeMB: before / MB,
      peakMB: peak / MB,
      sentMB: answers.map((a) => a.sentWhenAnswered / MB),
    });
    expect(peak - before).toBeLessThan(50 * MB);
    // The relay is still serving.
    expect((await http(relay, token).get('/v1/sessions')).status).toBe(200);
  }, 120_000);
});
