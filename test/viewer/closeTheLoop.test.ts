import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'happy-session/internal';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import type { SessionMessage } from 'happy-session';
import { permissions, runAgent } from '../../examples/custom-agent/agent.js';
import { tempDir } from '../transport/helpers.js';
import { launchChromium } from './chromium.js';
import type { TestBrowser } from './chromium.js';

/**
 * The viewer closes the loop (docs/viewer.md, docs/user-side.md): the custom agent example
 * runs against the relay, and a person in Chromium types prompts, stops a turn and allows several
 * waiting calls at once. Everything the page does goes through the SDK's `UserSession`.
 */
describe('the viewer closes the loop, in Chromium', () => {
  let relay: Relay;
  let browser: TestBrowser;
  let agent: Session;
  let twin: Session;
  let page: Page;
  let agentDone: Promise<void>;
  const work = tempDir('happy-viewer-loop-');
  const master = randomBytes(32);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    relay = await startRelay();
    const credentials = { kind: 'master' as const, masterSecret: master };
    agent = await connect({
      server: relay.url,
      credentials,
      title: 'Custom agent',
      permissions,
      archiveOnClose: false,
    });
    // A second session with the same title: the list must tell them apart.
    twin = await connect({ server: relay.url, credentials, title: 'Custom agent', archiveOnClose: false });
    await twin.close({ archive: false });
    agentDone = runAgent(agent, { cwd: work.path });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(viewerUrl(relay.url, master, agent.id));
    await page.locator('body[data-viewer="ready"]').waitFor();
    await page.locator(`article.session[data-session-id="${agent.id}"]`).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close({ archive: false });
    await agentDone?.catch(() => undefined);
    await relay?.close();
    work.remove();
  });

  const composer = () => page.locator(`article.session[data-session-id="${agent.id}"] form.composer`);

  async function type(prompt: string): Promise<void> {
    await composer().locator('textarea[name="prompt"]').fill(prompt);
    await composer().locator('textarea[name="prompt"]').press('Enter');
  }

  async function stored(): Promise<SessionMessage[]> {
    return agent.reader.messages();
  }

  it('lists sessions with the same title apart: time, short id, live or idle', async () => {
    const entry = (id: string) => page.locator(`.session-item[data-session-id="${id}"]`);
    await entry(twin.id).waitFor();
    for (const [session, state] of [
      [agent, 'live'],
      [twin, 'idle'],
    ] as const) {
      await expect(entry(session.id).locator('.session-item-title').textContent()).resolves.toBe(
        'Custom agent',
      );
      await expect(entry(session.id).locator('.session-item-id').textContent()).resolves.toBe(
        session.id.slice(0, 8),
      );
      await expect(entry(session.id).locator('.session-item-state').textContent()).resolves.toBe(state);
      await expect(entry(session.id).locator('time').textContent()).resolves.toMatch(/\d{2}:\d{2}/);
    }
  });

  it('a typed prompt reaches the agent, and its reply shows', async () => {
    await type('hello from the browser');
    const reply = page.locator('.message', { hasText: 'You said: "hello from the browser"' });
    await reply.waitFor();
    await expect(composer().locator('textarea[name="prompt"]').inputValue()).resolves.toBe('');
    const user = (await stored()).filter((m) => m.role === 'user' && m.type === 'text');
    expect(user.map((m) => m.type === 'text' && m.text)).toEqual(['hello from the browser']);
  });

  it('Stop ends the running turn (the abort RPC), and the turn shows cancelled', async () => {
    await type('run sleep 60');
    const card = page.locator('.permission[data-state="pending"]', { hasText: 'Run sleep 60' });
    await card.waitFor();
    await card.locator('button[data-option-id="allow-once"]').click();
    await page.locator('.call[data-status="running"]', { hasText: 'Run sleep 60' }).waitFor();
    const stop = composer().locator('button.stop');
    await expect(stop.isEnabled()).resolves.toBe(true);
    await stop.click();
    const turn = page.locator('.turn', { hasText: 'Run sleep 60' });
    await turn.and(page.locator('[data-status="cancelled"]')).waitFor();
    await composer().locator('.composer-status', { hasText: 'Stop sent.' }).waitFor();
    await page.waitForFunction(
      () =>
        (document.querySelector('form.composer button.stop') as HTMLButtonElement | null)?.disabled === true,
    );
  });

  it('Allow all appears with several waiting requests and runs every call exactly once', async () => {
    const marks = ['a', 'b', 'c'].map((n) => `${work.path}/${n}`);
    await type(`run each ${marks.map((m) => `echo ran >> ${m}`).join('; ')}`);
    const allowAll = composer().locator('button.allow-all');
    await page.locator('.permission[data-state="pending"]').nth(2).waitFor();
    await allowAll.waitFor({ state: 'visible' });
    await expect(allowAll.textContent()).resolves.toBe('Allow all (3)');
    await allowAll.click();
    const turn = page.locator('.turn', { hasText: 'echo ran >>' });
    await turn.and(page.locator('[data-status="completed"]')).waitFor();
    await expect(turn.locator('.call[data-status="done"]').count()).resolves.toBe(3);
    const { readFileSync } = await import('node:fs');
    for (const mark of marks) expect(readFileSync(mark, 'utf8')).toBe('ran\n');
    await allowAll.waitFor({ state: 'hidden' });
    const answers = (await stored()).filter((m) => m.type === 'permission-response' && !m.via);
    expect(
      answers.filter((m) => m.type === 'permission-response' && m.optionId === 'allow-once'),
    ).toHaveLength(4);
  });

  it('a denied call says "denied", not "failed"', async () => {
    await type('run echo no');
    const card = page.locator('.permission[data-state="pending"]', { hasText: 'Run echo no' });
    await card.locator('button[data-option-id="deny"]').click();
    const call = page.locator('.call', { hasText: 'Run echo no' });
    await call.and(page.locator('[data-status="denied"]')).waitFor();
    await expect(call.locator('.call-status').first().textContent()).resolves.toBe('denied');
    expect(pageErrors).toEqual([]);
  });

  it('without a key the page says where the link comes from, with commands as code', async () => {
    // A fresh profile: this browser's own profile keeps the key from the link opened above.
    const fresh = await launchChromium();
    try {
      const bare = await fresh.context.newPage();
      await bare.goto(`${relay.url}/`);
      await bare.locator('body[data-viewer="no-key"]').waitFor();
      const text = await bare.locator('.fatal p').textContent();
      expect(text).not.toContain('`');
      expect(await bare.locator('.fatal p code').allTextContents()).toEqual([
        'happy-session serve',
        '#ticket=…',
        'happy-session demo --keep',
        'happy-session keygen',
      ]);
    } finally {
      await fresh.close();
    }
  });
});
