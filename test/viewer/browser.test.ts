import { mkdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { thumbHashToDataURL } from 'thumbhash';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBase64, blobKeyFor, encryptBlob } from 'happy-session/crypto';
import { authChallengeBody, randomBytes } from 'happy-session/internal';
import { thumbhashFromImage } from 'happy-session/media';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { launchChromium } from './chromium.js';
import type { TestBrowser } from './chromium.js';

const OUTPUT_DIR = 'test-output/viewer';
const PERMISSION_OPTIONS = [
  { id: 'allow-once', label: 'Allow once', kind: 'allow-once' },
  { id: 'allow-always', label: 'Allow for session', kind: 'allow-always' },
  { id: 'reject-once', label: 'Deny', kind: 'reject-once' },
] as const;

/** A 64x48 PNG in four solid quadrants: red, green / blue, white. */
async function quadrantPng(): Promise<Buffer> {
  const width = 64;
  const height = 48;
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const top = y < height / 2;
      const left = x < width / 2;
      const color = top ? (left ? [255, 0, 0] : [0, 255, 0]) : left ? [0, 0, 255] : [255, 255, 255];
      rgba.set([...color, 255], (y * width + x) * 4);
    }
  }
  return sharp(rgba, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

/** A bearer token for the account, by the challenge flow (docs/wire.md §1.2). */
async function tokenFor(relay: Relay, master: Uint8Array): Promise<string> {
  const auth = await fetch(`${relay.url}/v1/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(authChallengeBody(master)),
  });
  return ((await auth.json()) as { token: string }).token;
}

/** Uploads encrypted bytes with the relay's attachment routes (docs/wire.md §8.1); returns the ref. */
async function uploadAttachment(
  relay: Relay,
  session: Session,
  master: Uint8Array,
  bytes: Uint8Array,
  filename: string,
) {
  const token = await tokenFor(relay, master);
  const encrypted = encryptBlob(bytes, blobKeyFor(session.key));
  const request = await fetch(`${relay.url}/v1/sessions/${session.id}/attachments/request-upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ filename, size: encrypted.length }),
  });
  const { ref, uploadUrl } = (await request.json()) as { ref: string; uploadUrl: string };
  const put = await fetch(uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${token}` },
    body: new Blob([new Uint8Array(encrypted)]),
  });
  expect(put.status).toBe(200);
  return ref;
}

describe('web viewer in Chromium', () => {
  let relay: Relay;
  let browser: TestBrowser;
  let session: Session;
  let page: Page;
  const master = randomBytes(32);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    relay = await startRelay();
    session = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Viewer test session',
      archiveOnClose: false,
    });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(viewerUrl(relay.url, master, session.id));
    await page.locator('body[data-viewer="ready"]').waitFor();
    await page.locator(`article.session[data-session-id="${session.id}"]`).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await session?.close({ archive: false });
    await relay?.close();
  });

  it('lists the session under its title and renders a live turn: markdown, thinking, nested call, subagent', async () => {
    await expect(
      page.locator(`.session-item[data-session-id="${session.id}"] .session-item-title`).textContent(),
    ).resolves.toBe('Viewer test session');

    const turn = session.turn();
    turn.text(
      'Here is **bold** and `code`.\n\n<img src="x" onerror="window.__xss = 1"><script>window.__xss = 2</script>',
    );
    turn.thinking('Private reasoning that starts collapsed.');
    const outer = turn.toolCall({ toolName: 'bash', title: 'Run `ls`', args: { command: 'ls' } });
    const inner = outer.scope().toolCall({ toolName: 'grep', title: 'Search for TODO' });
    inner.end();
    const task = turn.toolCall({
      toolName: 'task',
      title: 'Research the auth code',
      agentTitle: 'Auth research',
    });
    const sub = task.scope();
    sub.text('Found the auth handler.');
    sub.toolCall({ toolName: 'read', title: 'Read login.ts' }).end();
    task.end();
    outer.end();
    turn.toolCall({ toolName: 'bash', title: 'Run the tests' }).end({ error: 'exit code 1' });
    turn.end('completed');
    await session.writer.flush();

    const turnBox = page.locator(`.turn[data-turn="${turn.id}"]`);
    await turnBox.locator('.turn-status', { hasText: 'completed' }).waitFor();
    await expect(turnBox.locator('.text.agent strong').textContent()).resolves.toBe('bold');
    await expect(turnBox.locator('.text.agent code').first().textContent()).resolves.toBe('code');
    // Sanitised: the raw HTML neither ran nor kept its handler.
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await turnBox.locator('[onerror], script').count()).toBe(0);
    // Thinking is there, collapsed.
    const thinking = turnBox.locator('details.thinking');
    expect(await thinking.getAttribute('open')).toBeNull();
    expect(await thinking.locator('summary').textContent()).toBe('Thinking');
    // The inner call is nested under the outer one by parentId, and both are done.
    const outerBox = turnBox.locator(`.call[data-call-id="${outer.callId}"]`);
    await expect(outerBox.getAttribute('data-status')).resolves.toBe('done');
    const innerBox = outerBox.locator(`:scope > .children > .call[data-call-id="${inner.callId}"]`);
    await expect(innerBox.locator('.call-status').textContent()).resolves.toBe('done');
    await expect(innerBox.locator('.call-title').textContent()).resolves.toBe('Search for TODO');
    // The subagent's work is grouped under its title inside the spawning call.
    const group = turnBox.locator(
      `.call[data-call-id="${task.callId}"] > .agents > .agent-group[data-agent-id="${task.agentId}"]`,
    );
    await expect(group.locator('.agent-title').textContent()).resolves.toBe('Auth research');
    await expect(group.locator('.text.agent').textContent()).resolves.toContain('Found the auth handler.');
    await expect(group.locator('.call .call-title').textContent()).resolves.toBe('Read login.ts');
    // A failed call says so, with its error.
    const failed = turnBox.locator('.call[data-status="failed"]');
    await expect(failed.locator('.call-error').textContent()).resolves.toBe('exit code 1');
  });

  it('a gated tool call: the page shows the request, "Allow once" lets the tool run, and the call shows done', async () => {
    const turn = session.turn();
    const call = turn.toolCall({
      toolName: 'bash',
      title: 'Run `rm -rf build`',
      description: 'Deletes the build directory',
      args: { command: 'rm -rf build' },
    });
    // The session's own PermissionGate (installed by connect) holds the tool until the user answers.
    const ran: unknown[] = [];
    const running = call.run(
      (args) => {
        ran.push(args);
        return 'removed build/';
      },
      { options: [...PERMISSION_OPTIONS] },
    );

    const callBox = page.locator(`.call[data-call-id="${call.callId}"]`);
    const card = callBox.locator(`.permission[data-call-id="${call.callId}"]`);
    await card.locator('button[data-option-id="allow-once"]').waitFor();
    await expect(callBox.locator('.call-status').textContent()).resolves.toBe('awaiting permission');
    expect(await card.getAttribute('data-state')).toBe('pending');
    expect(await card.locator('.permission-options button').allTextContents()).toEqual([
      'Allow once',
      'Allow for session',
      'Deny',
    ]);
    expect(ran).toEqual([]);

    await card.locator('button', { hasText: 'Allow once' }).click();

    const result = await running;
    expect(result).toMatchObject({
      status: 'done',
      value: 'removed build/',
      decision: { outcome: 'allow', kind: 'allow-once', source: 'user' },
    });
    expect(ran).toEqual([{ command: 'rm -rf build' }]);
    await card.and(page.locator('[data-state="answered"]')).waitFor();
    const outcome = await card.locator('.permission-outcome').textContent();
    expect(outcome).toMatch(/^Allow once — decided by you \(this viewer\) at \d{1,2}:\d{2}:\d{2}/);
    await callBox.and(page.locator('[data-status="done"]')).waitFor();
    expect(await card.locator('button[data-option-id="allow-once"]').getAttribute('class')).toContain(
      'chosen',
    );

    // The page wrote the answer to the stream and called the RPC; whichever reached the gate first
    // won. If the RPC did, the gate recorded it as well (via: 'rpc'): every record says allow-once.
    const stream = await session.reader.messages();
    const responses = stream.filter((m) => m.type === 'permission-response');
    expect(responses.length).toBeGreaterThanOrEqual(1);
    for (const r of responses)
      expect(r).toMatchObject({ role: 'user', callId: call.callId, optionId: 'allow-once' });
    turn.end();
    await session.writer.flush();
  });

  it('shows a photo as its ThumbHash first, then the decrypted image with its real pixels', async () => {
    const png = await quadrantPng();
    const thumbhash = await thumbhashFromImage(png);

    // Hold the blob download so the placeholder stage can be seen for certain.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let downloadRequested!: () => void;
    const requested = new Promise<void>((resolve) => (downloadRequested = resolve));
    await page.route(/\/attachments\/[^/]+\.enc$/, async (route) => {
      downloadRequested();
      await released;
      await route.continue();
    });

    const turn = session.turn();
    turn.text('Here is the screenshot.');
    // attach(): dimensions and ThumbHash computed, encrypted, uploaded, then the photo appended.
    const photo = await turn.attach(png, { name: 'quadrants.png' });
    expect(photo).toMatchObject({ type: 'photo', width: 64, height: 48, thumbhash });
    turn.end();
    await session.writer.flush();

    const figure = page.locator(`.turn[data-turn="${turn.id}"] figure.photo`);
    await figure.locator('img.thumbhash').waitFor();
    await requested;
    expect(await figure.getAttribute('data-state')).toBe('placeholder');
    expect(await figure.locator('img.full').count()).toBe(0);
    expect(await figure.locator('img.thumbhash').getAttribute('src')).toBe(
      thumbHashToDataURL(decodeBase64(thumbhash)),
    );

    release();
    await figure.and(page.locator('[data-state="loaded"]')).waitFor();
    const pixels = await figure.locator('img.full').evaluate((element) => {
      const image = element as HTMLImageElement;
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const at = (x: number, y: number) => Array.from(context.getImageData(x, y, 1, 1).data);
      const all = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const colors = new Set<number>();
      for (let i = 0; i < all.length; i += 4) colors.add((all[i]! << 16) | (all[i + 1]! << 8) | all[i + 2]!);
      return {
        width: image.naturalWidth,
        height: image.naturalHeight,
        topLeft: at(8, 8),
        topRight: at(56, 8),
        bottomLeft: at(8, 40),
        bottomRight: at(56, 40),
        distinctColors: colors.size,
      };
    });
    expect(pixels).toEqual({
      width: 64,
      height: 48,
      topLeft: [255, 0, 0, 255],
      topRight: [0, 255, 0, 255],
      bottomLeft: [0, 0, 255, 255],
      bottomRight: [255, 255, 255, 255],
      distinctColors: 4,
    });

    expect(pageErrors).toEqual([]);
  });
  it('downloads a file decrypted, shows service messages, and lists a record that does not decrypt', async () => {
    const report = new TextEncoder().encode('name,score\nada,10\n');
    const ref = await uploadAttachment(relay, session, master, report, 'report.csv');
    const turn = session.turn();
    turn.service('Context window compacted');
    session.writer.append({
      type: 'file',
      role: 'agent',
      turn: turn.id,
      ref,
      name: 'report.csv',
      size: report.length,
      mimeType: 'text/csv',
    });
    turn.end();
    await session.writer.flush();
    const garbage = await fetch(`${relay.url}/v3/sessions/${session.id}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await tokenFor(relay, master)}`,
      },
      body: JSON.stringify({
        messages: [{ content: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g', localId: 'garbage-1' }],
      }),
    });
    expect(garbage.status).toBe(200);

    const turnBox = page.locator(`.turn[data-turn="${turn.id}"]`);
    await expect(turnBox.locator('.service').textContent()).resolves.toBe('Context window compacted');
    const file = turnBox.locator('.media.file');
    await expect(file.locator('.file-name').textContent()).resolves.toBe('report.csv');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      file.locator('button.file-download').click(),
    ]);
    expect(download.suggestedFilename()).toBe('report.csv');
    const saved = await download.path();
    expect(readFileSync(saved)).toEqual(Buffer.from(report));

    const problem = page.locator('.record-errors li');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^Record \d+ could not be read: /);
    await page.screenshot({ path: `${OUTPUT_DIR}/session.png`, fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
