import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'happy-session/internal';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { launchChromium } from './chromium.js';
import type { TestBrowser } from './chromium.js';

// The relay's viewer in Chromium shows the agent's current plan at the top of the session, and
// replaces it whole when the agent writes a newer one.

describe('the viewer shows the current plan', () => {
  let relay: Relay;
  let browser: TestBrowser;
  let session: Session;
  let page: Page;
  const master = randomBytes(32);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    relay = await startRelay();
    session = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Plan test session',
      archiveOnClose: false,
    });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(viewerUrl(relay.url, master, session.id));
    await page.locator(`article.session[data-session-id="${session.id}"]`).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await session?.close({ archive: false });
    await relay?.close();
  });

  it('at the top of the session, above the turns, replaced by the newer plan', async () => {
    const turn = session.turn();
    turn.plan([
      { content: 'Read the `parser`', status: 'in_progress', priority: 'high' },
      { content: 'Fix it', status: 'pending' },
    ]);
    turn.text('Reading.');
    await session.writer.flush();
    const box = page.locator(
      `article.session[data-session-id="${session.id}"] > .session-pinned > section.plan`,
    );
    await box.locator('.plan-progress', { hasText: '0 of 2 done' }).waitFor();
    await expect(box.locator('.plan-entry code').textContent()).resolves.toBe('parser');

    const newer = [
      { content: 'Read the parser', status: 'completed', priority: 'high' },
      { content: 'Fix it', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending', priority: 'low' },
    ] as const;
    const { message } = session.writer.appendMessage({
      type: 'plan',
      role: 'agent',
      turn: turn.id,
      entries: newer.map((e) => ({ ...e })),
    });
    turn.end();
    await session.writer.flush();
    await page.locator(`section.plan[data-message-id="${message.id}"]`).waitFor();
    await box.locator('.plan-progress', { hasText: '1 of 3 done' }).waitFor();
    const entries = await box.locator('.plan-entry').evaluateAll((items) =>
      items.map((li) => ({
        status: li.getAttribute('data-status'),
        text: li.querySelector('.plan-content')?.textContent,
        priority: li.querySelector('.plan-priority')?.textContent ?? null,
      })),
    );
    expect(entries).toEqual([
      { status: 'completed', text: 'Read the parser', priority: 'high' },
      { status: 'in_progress', text: 'Fix it', priority: null },
      { status: 'pending', text: 'Run the tests', priority: 'low' },
    ]);
    // The plan sits (pinned) before the timeline; each update also shows where it happened in the turn.
    const order = await page
      .locator(`article.session[data-session-id="${session.id}"] > *`)
      .evaluateAll((children) => children.map((c) => c.className));
    expect(order.indexOf('session-pinned')).toBeLessThan(order.indexOf('timeline'));
    await expect(page.locator('.message-plan').count()).resolves.toBe(2);
    expect(pageErrors).toEqual([]);
  });
});
