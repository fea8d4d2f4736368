import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, encodeBase64Url } from 'happy-session/internal';
import { startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { launchChromium } from './chromium.js';
import type { TestBrowser } from './chromium.js';

/** How the page gets the account key (docs/viewer.md, "How the page gets the key"). */
describe('the viewer key in Chromium', () => {
  let relay: Relay;
  let session: Session;
  const browsers: TestBrowser[] = [];
  const master = randomBytes(32);

  beforeAll(async () => {
    relay = await startRelay();
    session = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Key test session',
      archiveOnClose: false,
    });
  }, 60_000);

  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await session?.close({ archive: false });
    await relay?.close();
  });

  async function freshPage() {
    const browser = await launchChromium();
    browsers.push(browser);
    return browser.context.newPage();
  }

  it('opens a one-time link, drops the key from the address bar, and opens again from the kept key', async () => {
    const link = relay.viewerLink(master, session.id);
    const page = await freshPage();
    await page.goto(link);
    await page.locator('body[data-viewer="ready"]').waitFor();
    await page.locator(`article.session[data-session-id="${session.id}"]`).waitFor();
    expect(new URL(page.url()).hash).toBe(`#session=${session.id}`);
    const kept = await page.evaluate(() => localStorage.getItem('happy-session-viewer.secret'));
    expect(kept).toBe(encodeBase64Url(master));

    await page.reload();
    await page.locator('body[data-viewer="ready"]').waitFor();
    await page.locator(`article.session[data-session-id="${session.id}"]`).waitFor();
  }, 60_000);

  it('refuses a link that was already used, in another browser, and says why', async () => {
    const link = relay.viewerLink(master, session.id);
    const first = await freshPage();
    await first.goto(link);
    await first.locator('body[data-viewer="ready"]').waitFor();

    const second = await freshPage();
    await second.goto(link);
    await second.locator('body[data-viewer="failed"]').waitFor();
    const text = await second.locator('.fatal p').textContent();
    expect(text).toContain('This one-time link was already used, or the relay was restarted since.');
    expect(text).toContain('open the viewer in the browser that used it');
    expect(new URL(second.url()).hash).toBe(`#session=${session.id}`);
  }, 60_000);

  it('asks for a link when the browser has no key', async () => {
    const page = await freshPage();
    await page.goto(`${relay.url}/`);
    await page.locator('body[data-viewer="no-key"]').waitFor();
    expect(await page.locator('.fatal p').textContent()).toContain(
      'Open the one-time link happy-session serve prints (it ends in #ticket=…)',
    );
  }, 60_000);
});
