import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResult, Turn } from 'happy-session';
import { randomBytes } from 'happy-session/internal';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { CHROMIUM_PATH } from './chromium.js';

/**
 * What waits for the person, in a real Chromium (docs/viewer.md, "What waits for you"): the
 * "waiting for you" bar shows whenever one or more requests or questions wait, and a tap scrolls
 * the first into view below the pinned panel; on a phone nothing is wider than the page. On a
 * desktop, the pinned plan never overlaps what is above it: the session's title before the page
 * scrolls, the top bar after. Screenshots go to test-output/viewer/.
 */
const OUTPUT_DIR = 'test-output/viewer';
const BAR = 'button.waiting-bar';

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Whether two boxes share any area (touching edges do not count). */
function overlap(a: Box, b: Box): boolean {
  return (
    a.x < b.x + b.width - 0.5 &&
    b.x < a.x + a.width - 0.5 &&
    a.y < b.y + b.height - 0.5 &&
    b.y < a.y + a.height - 0.5
  );
}

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).boundingBox();
  if (!found) throw new Error(`${selector} is not shown`);
  return found;
}

/** What is wider than the page: the page itself, or an element sticking out on the right. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const wide: string[] = [];
    if (root.scrollWidth > root.clientWidth) wide.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    for (const element of Array.from(document.querySelectorAll<HTMLElement>('main *'))) {
      if (element.offsetParent === null) continue;
      const right = element.getBoundingClientRect().right;
      if (right > root.clientWidth + 0.5) wide.push(`${element.tagName}.${element.className} right ${right}`);
    }
    return wide;
  });
}

/**
 * Whether the person sees `selector` now: its box lies below the pinned panel (unless it is part
 * of it) and above the composer, and the topmost element at its centre is itself or inside it
 * (not a sticky panel drawn over it).
 */
function inPlainView(page: Page, selector: string): Promise<string | true> {
  return page.evaluate((selector) => {
    const element = document.querySelector<HTMLElement>(selector);
    if (!element) return `${selector} missing`;
    const r = element.getBoundingClientRect();
    const pinnedPanel = document.querySelector('.session-pinned')!;
    const pinned = pinnedPanel.getBoundingClientRect();
    const composer = document.querySelector('.composer')!.getBoundingClientRect();
    if (!pinnedPanel.contains(element) && r.top < pinned.bottom - 0.5)
      return `top ${r.top} under the pinned panel (bottom ${pinned.bottom})`;
    if (r.bottom > composer.top + 0.5) return `bottom ${r.bottom} under the composer (top ${composer.top})`;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && element.contains(hit) ? true : `covered by ${hit?.className ?? 'nothing'}`;
  }, selector);
}

/** Many screens of finished work, so whatever comes next is far below the top of the page. */
async function longHistory(session: Session, plan: boolean): Promise<Turn> {
  const earlier = session.turn();
  for (let i = 1; i <= 30; i++)
    earlier.text(`Step ${i}: ${'read the files and noted what they do. '.repeat(4)}`);
  earlier.end();
  const turn = session.turn();
  if (plan) {
    turn.plan([
      { content: 'Read the parser', status: 'completed' },
      { content: 'Fix the off-by-one', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending' },
    ]);
  }
  for (let i = 1; i <= 10; i++) turn.text(`Note ${i}: ${'the parser reads one token too many. '.repeat(3)}`);
  await session.writer.flush();
  return turn;
}

/** A gated Bash call that waits for the person. */
function waitingCall(turn: Turn, command: string) {
  const call = turn.toolCall({
    toolName: 'Bash',
    title: `Run ${command}`,
    args: { command },
    kind: 'execute',
  });
  return { call, result: call.run(() => 'ok') };
}

async function openBrowser(
  width: number,
  height: number,
  touch: boolean,
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const context = await browser.newContext({ viewport: { width, height }, hasTouch: touch, isMobile: touch });
  return { browser, page: await context.newPage() };
}

describe('the waiting bar on a phone (390×844, by tap)', () => {
  let relay: Relay;
  let browser: Browser;
  let page: Page;
  let agent: Session;
  const master = randomBytes(32);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    relay = await startRelay();
    agent = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Long session',
      archiveOnClose: false,
      shutdownSignals: false,
    });
    ({ browser, page } = await openBrowser(390, 844, true));
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close({ archive: false });
    await relay?.close();
  });

  it('one waiting request: the bar shows, a tap brings the request into plain view, nothing overflows; answered, the bar goes', async () => {
    const turn = await longHistory(agent, true);
    await page.goto(viewerUrl(relay.url, master, agent.id));
    await page.locator('.text', { hasText: 'Note 10:' }).waitFor();
    // Nothing waits: no bar.
    expect(await page.locator(BAR).isVisible()).toBe(false);

    const make = waitingCall(turn, 'make');
    const card = `.permission[data-state="pending"][data-call-id="${make.call.callId}"]`;
    await page.locator(card).waitFor({ state: 'attached' });
    const bar = page.locator(BAR);
    await bar.waitFor();
    await expect(bar.locator('.waiting-count').textContent()).resolves.toBe('1 request');
    await expect(bar.locator('.waiting-first').textContent()).resolves.toBe('Run make');
    // The page is still at the top; the request is far below, and the bar is in view.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(await inPlainView(page, card)).not.toBe(true);
    const shown = await box(page, BAR);
    expect(shown.y).toBeGreaterThanOrEqual(0);
    expect(shown.height).toBeGreaterThanOrEqual(44);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${OUTPUT_DIR}/phone-waiting-bar.png` });

    await page.tap(BAR);
    expect(await inPlainView(page, card)).toBe(true);
    expect(await inPlainView(page, `${card} button[data-option-id="allow-once"]`)).toBe(true);
    // The bar stays where it was, stuck under the top bar, with the plan below it.
    const stuck = await box(page, BAR);
    const top = await box(page, 'header.top');
    expect(stuck.y).toBeGreaterThanOrEqual(top.y + top.height - 0.5);
    expect(overlap(stuck, await box(page, 'section.plan'))).toBe(false);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${OUTPUT_DIR}/phone-waiting-jumped.png` });

    await page.tap(`${card} button[data-option-id="allow-once"]`);
    expect((await make.result).status).toBe('done');
    await bar.waitFor({ state: 'hidden' });
    turn.end();
    await agent.writer.flush();
    expect(pageErrors).toEqual([]);
  });

  it('two requests and a question: the bar counts them all and jumps to the first; a question alone shows it too', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const turn = agent.turn();
    // A long unbroken title: the bar cuts it short instead of widening the page.
    const first = waitingCall(turn, `rm -rf ${'build/output/'.repeat(12)}`);
    const second = waitingCall(turn, 'make install');
    const asked: Promise<AskResult> = turn.ask([
      { id: 'db', question: 'Which database?', options: ['Postgres', 'SQLite'] },
    ]);
    const bar = page.locator(BAR);
    await bar.locator('.waiting-count', { hasText: '2 requests and 1 question' }).waitFor();
    await expect(bar.locator('.waiting-first').textContent()).resolves.toMatch(/^Run rm -rf build/);
    expect(await overflowing(page)).toEqual([]);
    await page.tap(BAR);
    expect(await inPlainView(page, `.permission[data-call-id="${first.call.callId}"]`)).toBe(true);

    for (const { call } of [first, second])
      await page.tap(`.permission[data-call-id="${call.callId}"] button[data-kind="reject-once"]`);
    await bar.locator('.waiting-count', { hasText: /^1 question$/ }).waitFor();
    await expect(bar.locator('.waiting-first').textContent()).resolves.toBe('Which database?');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.tap(BAR);
    expect(await inPlainView(page, '.question[data-state="pending"]')).toBe(true);
    expect(await overflowing(page)).toEqual([]);
    await page.tap('.question[data-state="pending"] button.question-dismiss');
    expect((await asked).status).toBe('cancelled');
    await bar.waitFor({ state: 'hidden' });
    turn.end();
    await agent.writer.flush();
    expect(pageErrors).toEqual([]);
  });
});

describe('the pinned plan on a desktop (1280×800)', () => {
  let relay: Relay;
  let browser: Browser;
  let page: Page;
  let agent: Session;
  const master = randomBytes(32);

  beforeAll(async () => {
    relay = await startRelay();
    agent = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Planned session',
      archiveOnClose: false,
      shutdownSignals: false,
    });
    ({ browser, page } = await openBrowser(1280, 800, false));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close({ archive: false });
    await relay?.close();
  });

  it('never overlaps the card above it: the title before scrolling, the top bar and the waiting bar after', async () => {
    const turn = await longHistory(agent, true);
    await page.goto(viewerUrl(relay.url, master, agent.id));
    await page.locator('.text', { hasText: 'Note 10:' }).waitFor();
    const plan = 'section.plan';
    expect(overlap(await box(page, plan), await box(page, 'h2.session-title'))).toBe(false);

    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 3000);
    await page.waitForFunction(() => window.scrollY > 1000);
    const stuck = await box(page, plan);
    const top = await box(page, 'header.top');
    expect(overlap(stuck, top)).toBe(false);
    expect(stuck.y).toBeGreaterThanOrEqual(top.y + top.height - 0.5);
    // The plan's own header is what one sees at its place, not another card drawn over it.
    expect(await inPlainView(page, `${plan} .plan-header`)).toBe(true);

    const waiting = waitingCall(turn, 'make');
    await page.locator(BAR).waitFor();
    const bar = await box(page, BAR);
    const below = await box(page, plan);
    expect(overlap(bar, below)).toBe(false);
    expect(overlap(bar, await box(page, 'header.top'))).toBe(false);
    expect(below.y).toBeGreaterThanOrEqual(bar.y + bar.height);
    await page.screenshot({ path: `${OUTPUT_DIR}/desktop-pinned-plan.png` });

    await page.click(BAR);
    const card = `.permission[data-call-id="${waiting.call.callId}"]`;
    expect(await inPlainView(page, card)).toBe(true);
    await page.click(`${card} button[data-kind="reject-once"]`);
    expect((await waiting.result).status).toBe('denied');
    turn.end();
    await agent.writer.flush();
  });
});
