import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { SdkError } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { encryptRecordBase64 } from 'happy-session/internal';
import { accountOn } from '../transport/helpers.js';

/**
 * A relay whose disk is full (issue 36, item 6; docs/relay.md, "A full disk"): a real tmpfs of a
 * few MiB, mounted in a user and mount namespace of its own (no root needed), filled until the
 * kernel says ENOSPC. The relay answers what it cannot store with 507 `storage_full`, the SDK
 * maps it to `transport.storage_full` with a hint, and once room is freed the writer's held
 * records go through, none lost, none twice.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/fullDiskRelay.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

let child: ChildProcess | undefined;
let session: Session | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await session?.close({ deadlineMs: 1_000 }).catch(() => undefined);
  session = undefined;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    // The whole group: tsx's launcher runs the relay in a node process of its own, which a kill of
    // the launcher alone would leave running.
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }
  child = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the relay on an 8 MiB tmpfs; `say` sends a command and waits for its answer line. */
async function relayOnSmallDisk(): Promise<{
  url: string;
  say: (command: string, answer: string) => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'relay-full-'));
  dirs.push(dir);
  child = spawn(
    'unshare',
    [
      '--user',
      '--map-root-user',
      '--mount',
      'sh',
      '-c',
      'mount -t tmpfs -o size=8m tmpfs "$1" && exec "$2" "$3" "$1"',
      'sh',
      dir,
      TSX,
      FIXTURE,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], detached: true },
  );
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiters.splice(0)) {
      if (hasLine(stdout, w.text)) w.resolve();
      else waiters.push(w);
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child!.once('exit', (code) => reject(new Error(`relay exited with ${code}: ${stderr}`))),
  );
  const line = (text: string): Promise<void> =>
    Promise.race([
      new Promise<void>((resolve) => {
        if (hasLine(stdout, text)) resolve();
        else waiters.push({ text, resolve });
      }),
      exited,
    ]);
  await line('ready');
  const url = /ready (\S+)/.exec(stdout)![1]!;
  return {
    url,
    say: async (command, answer) => {
      stdout = '';
      child!.stdin!.write(`${command}\n`);
      await line(answer);
    },
  };
}

/** Whether `output` has a whole line starting with `text`. */
function hasLine(output: string, text: string): boolean {
  return output
    .split('\n')
    .slice(0, -1)
    .some((line) => line.startsWith(text));
}

describe('a relay with a full disk', () => {
  test('answers 507 storage_full, the SDK names it, and held records go through once there is room', async () => {
    const relay = await relayOnSmallDisk();
    const on = await accountOn(relay.url);
    session = await connect({
      server: relay.url,
      credentials: on.credentials,
      permissions: false,
      shutdownSignals: false,
    });
    // Positive control: with room, a record is stored.
    const first = session.turn();
    first.text('before the disk filled');
    await session.writer.flush();

    await relay.say('fill', 'full');
    // A raw append of 200 KiB (the write-ahead log must grow) is refused with the disk named.
    const body = await encryptRecordBase64(
      { role: 'agent', content: { type: 'text', text: 'x'.repeat(200_000) } },
      session.key,
    );
    const refused = await on.http
      .request('POST', `/v3/sessions/${session.id}/messages`, {
        messages: [{ content: body, localId: globalThis.crypto.randomUUID() }],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SdkError);
    const error = refused as SdkError;
    expect(error.code).toBe('transport.storage_full');
    expect(error.hint).toContain('disk is full');
    expect(error.details).toMatchObject({ status: 507, body: { code: 'storage_full', statusCode: 507 } });

    // The writer holds what it cannot store and retries; freeing room lets it through.
    first.text('y'.repeat(200_000));
    first.text('written while the disk was full');
    first.end();
    const flushed = session.writer.flush();
    await relay.say('free', 'freed');
    await flushed;
    const texts = (await session.reader.messages())
      .filter((m) => m.type === 'text')
      .map((m) => (m as { text: string }).text.slice(0, 40));
    expect(texts).toEqual(['before the disk filled', 'y'.repeat(40), 'written while the disk was full']);
  });
});
