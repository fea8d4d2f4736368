import { mkdirSync } from 'node:fs';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'happy-session/internal';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { permissions, runAgent } from '../../examples/custom-agent/agent.js';
import { tempDir } from '../transport/helpers.js';
import { CHROMIUM_PATH } from './chromium.js';

/**
 * The viewer on a phone and on a desktop (docs/viewer.md, "On a phone and on a desktop"): at 390×844 with touch and at
 * 1280×800, nothing is wider than the page (the page and every card: scrollWidth ≤ clientWidth),
 * the session list is a drawer on the phone and stays in view on the desktop, and Allow, Deny,
 * Stop and the prompt box are visible, at least 44 px high on the phone, and work (by tap there).
 * Screenshots go to test-output/viewer/ to be looked at.
 */
const OUTPUT_DIR = 'test-output/viewer';
const WARN = 'rgb(199, 106, 0)';
const CARDS = '.turn, .call, .permission, .media, .text, .agent-group, .composer, .session-item';

/** A wide photo (1200×300) so the page has to fit it to the width. */
function widePng(): Promise<Buffer> {
  return sharp({ create: { width: 1200, height: 300, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

/** What overflows horizontally: the page itself, or any card, by selector and width. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate((cards) => {
    const wide: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) wide.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    for (const element of Array.from(document.querySelectorAll<HTMLElement>(cards))) {
      if (element.offsetParent === null) continue; // not shown (the closed drawer)
      if (element.scrollWidth > element.clientWidth)
        wide.push(`${element.className} ${element.scrollWidth} > ${element.clientWidth}`);
      const box = element.getBoundingClientRect();
      if (box.right > root.clientWidth + 0.5) wide.push(`${element.className} right ${box.right}`);
    }
    return wide;
  }, CARDS);
}

describe.each([
  { name: 'phone', width: 390, height: 844, touch: true },
  { name: 'desktop', width: 1280, height: 800, touch: false },
])('the viewer at $width×$height ($name)', ({ name, width, height, touch }) => {
  let relay: Relay;
  let browser: Browser;
  let page: Page;
  let agent: Session;
  let gallery: Session;
  let agentDone: Promise<void>;
  const work = tempDir('happy-viewer-phone-');
  const master = randomBytes(32);
  const failedRequests: string[] = [];
  const pageErrors: string[] = [];

  /** A tap on the phone, a click on the desktop. */
  const press = (selector: string) => (touch ? page.tap(selector) : page.click(selector));

  /** The element is in the viewport, inside the page's width, and (on the phone) 44 px high at least. */
  async function expectUsable(selector: string): Promise<void> {
    const element = page.locator(selector);
    await element.scrollIntoViewIfNeeded();
    const box = (await element.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(height);
    if (touch) expect(box.height, selector).toBeGreaterThanOrEqual(44);
  }

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    relay = await startRelay();
    const credentials = { kind: 'master' as const, masterSecret: master };
    // A session with nested steps, long unbroken text, a wide photo, a file and a request whose
    // call ended unanswered.
    gallery = await connect({ server: relay.url, credentials, title: 'Gallery', archiveOnClose: false });
    const turn = gallery.turn();
    turn.text(`A long path: ${'/very/long/directory'.repeat(12)}/file.ts and \`${'x'.repeat(120)}\``);
    await turn.step('Build the release with a rather long step title that has to wrap', async (build) => {
      await build.step('Compile every package', async (compile) => {
        await compile.step(`Compile ${'packages/sdk/src/'.repeat(6)}`, () => undefined);
      });
    });
    const args = { command: `rm -rf ${'build/output/'.repeat(15)}` };
    await turn.attach(await widePng(), { name: 'wide.png' });
    await turn.attach(Buffer.from('# Notes\n'.repeat(300)), { name: 'notes.md' });
    const orphan = turn.toolCall({ toolName: 'bash', title: 'Run `rm -rf build`', args });
    const unanswered = orphan.run(() => 'never');
    await gallery.writer.flush();
    turn.end('completed');
    await unanswered.catch(() => undefined);
    await gallery.writer.flush();
    await gallery.close({ archive: false });

    agent = await connect({
      server: relay.url,
      credentials,
      title: 'Custom agent',
      permissions,
      archiveOnClose: false,
    });
    agentDone = runAgent(agent, { cwd: work.path });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const context = await browser.newContext({
      viewport: { width, height },
      hasTouch: touch,
      isMobile: touch,
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(viewerUrl(relay.url, master, gallery.id));
    await page.locator('body[data-viewer="ready"]').waitFor();
    await page
      .locator(`article.session[data-session-id="${gallery.id}"] figure.photo[data-state="loaded"]`)
      .waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close({ archive: false });
    await agentDone?.catch(() => undefined);
    await relay?.close();
    work.remove();
  });

  it('fits nested steps, long text, a photo, a file and a closed request to the width; sizes in KiB; no 404', async () => {
    await page.locator('.call-title', { hasText: 'Compile packages/sdk/src/' }).waitFor();
    expect(await overflowing(page)).toEqual([]);
    const photo = (await page.locator('figure.photo').boundingBox())!;
    expect(photo.width).toBeLessThanOrEqual(width);
    await expect(page.locator('.file-meta').first().textContent()).resolves.toMatch(/\d KiB/);
    // The request whose call ended unanswered no longer looks like it waits.
    const closed = page.locator('.permission[data-state="closed"]');
    await closed.waitFor();
    expect(await closed.evaluate((e) => getComputedStyle(e).borderTopColor)).not.toBe(WARN);
    await page.screenshot({ path: `${OUTPUT_DIR}/${name}-gallery.png`, fullPage: true });
    expect(failedRequests).toEqual([]);
    expect((await fetch(`${relay.url}/favicon.ico`)).status).toBe(200);
  });

  it('the session list: a drawer on the phone, in view beside a long transcript on the desktop', async () => {
    const toggle = page.locator('button.sessions-toggle');
    const item = (id: string) => `.session-item[data-session-id="${id}"]`;
    if (touch) {
      expect(await page.locator(item(agent.id)).isVisible()).toBe(false);
      await expectUsable('button.sessions-toggle');
      await press('button.sessions-toggle');
      await expectUsable(item(agent.id));
      expect(await overflowing(page)).toEqual([]);
      await page.screenshot({ path: `${OUTPUT_DIR}/${name}-drawer.png` });
    } else {
      expect(await toggle.isVisible()).toBe(false);
      await page.mouse.wheel(0, 5000);
      await page.waitForFunction(() => window.scrollY > 0);
      await expectUsable(item(agent.id));
    }
    await press(item(agent.id));
    await page.locator(`article.session[data-session-id="${agent.id}"]`).waitFor();
    if (touch) expect(await page.locator(item(agent.id)).isVisible()).toBe(false);
    expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('session')).toBe(agent.id);
  });

  it('#session= in the address bar switches sessions, and Back returns', async () => {
    await page.evaluate((id) => (location.hash = `#session=${id}`), gallery.id);
    await page.locator(`article.session[data-session-id="${gallery.id}"]`).waitFor();
    await page.goBack();
    await page.locator(`article.session[data-session-id="${agent.id}"]`).waitFor();
  });

  it('the prompt box, Allow, Deny and Stop are visible and work', async () => {
    const composer = `article.session[data-session-id="${agent.id}"] form.composer`;
    const prompt = `${composer} textarea[name="prompt"]`;
    const send = async (text: string) => {
      await expectUsable(prompt);
      await page.fill(prompt, text);
      await expectUsable(`${composer} button.send`);
      await press(`${composer} button.send`);
    };

    await send(`run echo allowed >> ${work.path}/a`);
    const allow = '.permission[data-state="pending"] button[data-option-id="allow-once"]';
    await page.locator(allow).waitFor();
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${OUTPUT_DIR}/${name}-permission.png` });
    await expectUsable(allow);
    await expectUsable('.permission[data-state="pending"] button[data-kind="reject-once"]');
    await press(allow);
    await page.locator('.call[data-status="done"]', { hasText: 'echo allowed' }).waitFor();

    await send(`run echo denied >> ${work.path}/d`);
    const deny = '.permission[data-state="pending"] button[data-kind="reject-once"]';
    await page.locator(deny).waitFor();
    await expectUsable(deny);
    await press(deny);
    await page.locator('.call[data-status="denied"]', { hasText: 'echo denied' }).waitFor();

    await send('run sleep 60');
    await page.locator(allow).waitFor();
    await press(allow);
    await page.locator('.call[data-status="running"]', { hasText: 'sleep 60' }).waitFor();
    await expectUsable(`${composer} button.stop:not([disabled])`);
    await press(`${composer} button.stop`);
    await page.locator('.turn[data-status="cancelled"]', { hasText: 'sleep 60' }).waitFor();
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${OUTPUT_DIR}/${name}-stopped.png`, fullPage: true });

    const { readFileSync, existsSync } = await import('node:fs');
    expect(readFileSync(`${work.path}/a`, 'utf8')).toBe('allowed\n');
    expect(existsSync(`${work.path}/d`)).toBe(false);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
