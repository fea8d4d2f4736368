/**
 * Everything the SDK sends is ciphertext: after a session full of marked text, no byte sequence of
 * the marker is anywhere in the relay's data directory (database, WAL, attachment files).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { blobKeyFor, encryptBlob } from 'happy-session/crypto';
import { startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import { accountOn, tempDir } from './helpers.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  return filesUnder(dir).filter((file) => readFileSync(file).includes(bytes));
}

let data: ReturnType<typeof tempDir>;
let relay: Relay;
beforeAll(async () => {
  data = tempDir('relay-data-');
  relay = await startRelay({ dataDir: data.path });
});
afterAll(() => data.remove());

test('no plaintext marker written through the SDK reaches the relay data directory', async () => {
  const marker = `PLAINTEXT-MARKER-${Math.random().toString(36).slice(2)}`;
  const { credentials, http } = await accountOn(relay.url);
  const session = await connect({
    server: relay.url,
    credentials,
    title: `${marker} title`,
    metadata: { path: `/home/${marker}`, note: marker },
    agentState: { note: marker },
  });
  await session.state.updateAgentState((s) => ({
    ...s,
    requests: { r1: { tool: 'Bash', arguments: { command: marker }, createdAt: 1 } },
  }));
  const turn = session.turn();
  turn.text(`${marker} in a text`);
  turn.thinking(`${marker} in a thought`);
  turn.toolCall({ toolName: 'bash', title: marker, args: { command: `echo ${marker}` } }).end();
  turn.end();
  // An attachment, encrypted with the session's blob key and uploaded as the app would.
  const upload = await http.request<{ uploadUrl: string }>(
    'POST',
    `/v1/sessions/${session.id}/attachments/request-upload`,
    {
      filename: `${marker}.txt`,
      size: 100,
    },
  );
  const blob = encryptBlob(Buffer.from(`${marker} in a file`), blobKeyFor(session.key));
  const put = await fetch(upload.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${credentials.token}` },
    body: Buffer.from(blob),
  });
  expect(put.status).toBe(200);
  await session.writer.flush();
  const stored = await session.transport.read(0);
  await session.close();
  await relay.close();

  const files = filesUnder(data.path);
  expect(files.some((f) => f.includes('attachments'))).toBe(true);
  // The scan does see what is stored: the ciphertext of a record is in the database.
  expect(filesContaining(data.path, stored.records[1]!.content).length).toBeGreaterThan(0);
  expect(filesContaining(data.path, marker)).toEqual([]);
});
