import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'happy-session/internal';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import type { AskResult } from 'happy-session';
import { until } from '../helpers/until.js';
import { CHROMIUM_PATH } from './chromium.js';

/**
 * The agent's question as a form card in the viewer (docs/questions.md, docs/viewer.md), in a real
 * Chromium: on a phone (390×844, by tap) and on a desktop (by click). Nothing is wider than the
 * page, its buttons are at least 44 px high on the phone, a required question left empty is
 * refused with the agent's reason, and an answer sent from the card is the one the agent gets.
 */
const OUTPUT_DIR = 'test-output/viewer';

describe.each([
  { name: 'phone', width: 390, height: 844, touch: true },
  { name: 'desktop', width: 1280, height: 800, touch: false },
])('a question in the viewer at $width×$height ($name)', ({ name, width, height, touch }) => {
  let relay: Relay;
  let browser: Browser;
  let page: Page;
  let agent: Session;
  const master = randomBytes(32);
  const press = (selector: string) => (touch ? page.tap(selector) : page.click(selector));

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    relay = await startRelay();
    agent = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Asking agent',
      archiveOnClose: false,
      shutdownSignals: false,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({
      viewport: { width, height },
      hasTouch: touch,
      isMobile: touch,
    });
    page = await context.newPage();
    await page.goto(viewerUrl(relay.url, master, agent.id));
    await page.locator('body[data-viewer="ready"]').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close({ archive: false });
    await relay?.close();
  });

  it('answers several choices and own text from the card; an empty required question is refused first', async () => {
    const turn = agent.turn();
    const answer: Promise<AskResult> = turn.ask(
      [
        {
          id: 'checks',
          header: 'Checks',
          question: `Which checks should run before deploying ${'packages/sdk/src/'.repeat(4)}?`,
          options: ['lint', 'tests', { label: 'e2e', description: 'the slow browser suite' }],
          multiSelect: true,
        },
        { id: 'name', header: 'Name', question: 'Release name?' },
      ],
      { title: 'Before the deploy' },
    );
    await until(() => agent.questions!.pending.length === 1);
    const id = agent.questions!.pending[0]!.questionId;
    const card = `form.question[data-question-id="${id}"]`;
    await page.locator(`${card}[data-state="pending"]`).waitFor();

    // Nothing wider than the page; every button of the card 44 px high on the phone.
    const wide = await page.evaluate(() => {
      const root = document.documentElement;
      const out: string[] = [];
      if (root.scrollWidth > root.clientWidth) out.push(`page ${root.scrollWidth}`);
      for (const e of Array.from(document.querySelectorAll<HTMLElement>('.question, .question *'))) {
        if (e.getBoundingClientRect().right > root.clientWidth + 0.5) out.push(e.className || e.tagName);
      }
      return out;
    });
    expect(wide).toEqual([]);
    for (const button of await page.locator(`${card} button`).all()) {
      const box = (await button.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      if (touch) expect(box.height).toBeGreaterThanOrEqual(44);
    }
    await page.screenshot({ path: `${OUTPUT_DIR}/${name}-question.png`, fullPage: true });

    await press(`${card} button[data-label="lint"]`);
    await press(`${card} button[data-label="e2e"]`);
    await press(`${card} button.question-send`);
    // The release name is required: the agent refuses, the card says why and stays open.
    await page.locator(`${card}[data-state="pending"] .question-note`, { hasText: 'name' }).waitFor();
    expect(agent.questions!.pending).toHaveLength(1);

    await page.fill(`${card} input.question-custom[data-question-id="name"]`, 'Blue moon');
    await press(`${card} button.question-send`);
    expect(await answer).toMatchObject({
      status: 'answered',
      via: 'rpc',
      answers: { checks: { options: ['lint', 'e2e'] }, name: { options: [], custom: 'Blue moon' } },
    });
    await page.locator(`${card}[data-state="answered"]`).waitFor();
    await expect(page.locator(`${card} .question-note`).textContent()).resolves.toMatch(
      /^Answered: lint, e2e; Blue moon at /,
    );
    turn.end();
  });
});
