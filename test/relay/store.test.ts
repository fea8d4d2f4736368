import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from 'happy-session';
import { startRelay, type Relay } from 'happy-session-relay';
import { MAIN, TSX, ROOT } from '../cli/helpers.js';
import { createSession, http, signIn, uploadPath } from './helpers.js';

let relay: Relay | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await relay?.close();
  relay = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'relay-store-'));
  chmodSync(dir, 0o755); // readable by anyone, as a directory made by hand often is
  dirs.push(dir);
  return dir;
}

/** Every path under `dir` (itself included) with its permission bits. */
function modes(dir: string): Record<string, string> {
  const found: Record<string, string> = { '.': (statSync(dir).mode & 0o777).toString(8) };
  const visit = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = sub ? `${sub}/${entry.name}` : entry.name;
      found[path] = (statSync(join(dir, path)).mode & 0o777).toString(8);
      if (entry.isDirectory()) visit(path);
    }
  };
  visit('');
  return found;
}

/** A relay with a data dir, an account, and one stored attachment. */
async function fill(dataDir: string, logger?: Logger): Promise<void> {
  relay = await startRelay({ dataDir, ...(logger ? { logger } : {}) });
  const { token } = await signIn(relay);
  const sessionId = (await createSession(relay, token)).id as string;
  const path = await uploadPath(relay, token, sessionId);
  expect((await http(relay, token).put(path, new Uint8Array([1, 2, 3]))).status).toBe(200);
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => warnings.push(message),
    error: () => undefined,
  };
}

describe('the data dir on disk (docs/relay.md, "Files on disk")', () => {
  it('is created 0700 with every file in it 0600', async () => {
    const dataDir = join(tempDir(), 'fresh', 'relay');
    await fill(dataDir);
    const found = modes(dataDir);
    for (const [path, mode] of Object.entries(found)) {
      const isDir = statSync(join(dataDir, path)).isDirectory();
      expect([path, mode]).toEqual([path, isDir ? '700' : '600']);
    }
    expect(Object.keys(found)).toEqual(expect.arrayContaining(['relay.sqlite', 'attachments']));
  });

  it('tightens a loosened data dir at start, with one warning', async () => {
    const dataDir = tempDir();
    await fill(dataDir);
    await relay!.close();
    relay = undefined;
    // Loosen everything, as a careless copy or an umask of 022 would.
    for (const path of Object.keys(modes(dataDir))) {
      const full = join(dataDir, path);
      chmodSync(full, statSync(full).isDirectory() ? 0o777 : 0o644);
    }
    mkdirSync(join(dataDir, 'attachments', 'extra'), { mode: 0o755 });
    writeFileSync(join(dataDir, 'attachments', 'extra', 'blob.enc'), 'x', { mode: 0o666 });
    chmodSync(join(dataDir, 'attachments', 'extra', 'blob.enc'), 0o666);

    const logger = recordingLogger();
    relay = await startRelay({ dataDir, logger });
    for (const [path, mode] of Object.entries(modes(dataDir))) {
      const isDir = statSync(join(dataDir, path)).isDirectory();
      expect([path, mode]).toEqual([path, isDir ? '700' : '600']);
    }
    expect(logger.warnings).toEqual([
      'relay data dir was readable by other users; made private (0700 folders, 0600 files)',
    ]);
  });
});

describe('a store the relay cannot write', () => {
  it('makes `happy-session serve` exit 1 at start with the reason, instead of answering 500 later', async () => {
    const dataDir = tempDir();
    await fill(dataDir);
    await relay!.close();
    relay = undefined;
    // Root writes anywhere: run the relay as nobody then, and hand the store to nobody read-only.
    const asRoot = process.getuid?.() === 0;
    for (const path of Object.keys(modes(dataDir)).reverse()) {
      const full = join(dataDir, path);
      if (asRoot) chownSync(full, 65534, 65534);
      chmodSync(full, statSync(full).isDirectory() ? 0o500 : 0o400);
    }
    const home = tempDir();
    const child = spawn(TSX, [MAIN, 'serve', '--port', '0', '--data', dataDir], {
      cwd: ROOT,
      env: { ...process.env, HAPPY_HOME_DIR: home, HOME: home },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (part: Buffer) => (out += part.toString()));
    child.stderr.on('data', (part: Buffer) => (err += part.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain(`The relay cannot write to ${dataDir}`);
    expect(err).toContain('code: relay.store_not_writable');
    expect(err).toContain('hint: give the user who runs the relay write access to the data directory');
    expect(out).not.toContain('listening');
  }, 60_000);
});
