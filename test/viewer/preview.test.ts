import { mkdirSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'happy-session/internal';
import { startRelay, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { commandExecutor, sandboxedShell, shellPreviewer } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { sandboxWorld } from '../sandbox/world.js';
import type { SandboxWorld } from '../sandbox/world.js';
import { CHROMIUM_PATH } from './chromium.js';

/**
 * The preview card of a permission request in the viewer on a phone (issue 38, item 2;
 * docs/sandbox.md, "What the person sees"), with real bubblewrap making the preview and the
 * embedded relay carrying it: at 390×844 the card shows the files with sizes and diffs, the
 * connection tried, the exit status, the output tail and that allow runs it again for real, and
 * neither the page nor the card is wider than the screen (scrollWidth ≤ clientWidth).
 */
const OUTPUT_DIR = 'test-output/viewer';
const WIDTH = 390;
const HEIGHT = 844;
const LONG_DIR = 'a-rather-long-directory-name-that-does-not-break/'.repeat(3);

/** What overflows horizontally: the page itself, or one of `selectors`, by selector and width. */
function overflowing(page: Page, selectors: string): Promise<string[]> {
  return page.evaluate((cards) => {
    const wide: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) wide.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    for (const element of Array.from(document.querySelectorAll<HTMLElement>(cards))) {
      if (element.scrollWidth > element.clientWidth)
        wide.push(`${element.className} ${element.scrollWidth} > ${element.clientWidth}`);
      const box = element.getBoundingClientRect();
      if (box.right > root.clientWidth + 0.5) wide.push(`${element.className} right ${box.right}`);
    }
    return wide;
  }, selectors);
}

describe('the preview card in the viewer at 390×844 (phone)', () => {
  let relay: Relay;
  let world: SandboxWorld;
  let shell: SandboxedShell;
  let agent: Session;
  let browser: Browser;
  let page: Page;
  const master = randomBytes(32);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    relay = await startRelay();
    world = await sandboxWorld();
    shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
    expect(shell.unavailable).toBeUndefined();
    agent = await connect({
      server: relay.url,
      credentials: { kind: 'master', masterSecret: master },
      title: 'Preview on a phone',
      archiveOnClose: false,
      shutdownSignals: false,
      permissions: {
        workspaceRoot: world.workspace,
        preview: shellPreviewer({ workspaceRoot: world.workspace, homeDir: world.home }),
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const context = await browser.newContext({
      viewport: { width: WIDTH, height: HEIGHT },
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(viewerUrl(relay.url, master, agent.id));
    await page.locator('body[data-viewer="ready"]').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close({ archive: false });
    await shell?.close();
    await world?.remove();
    await relay?.close();
  });

  it('shows files, sizes, a diff, the connection tried, exit status, output tail and the note, within the width; deny lands nothing', async () => {
    await writeFile(join(world.workspace, 'notes.txt'), 'one\ntwo\n');
    await writeFile(join(world.workspace, 'gone.txt'), 'bye\n');
    const before = (await readdir(world.workspace)).sort();
    const command = [
      `mkdir -p ${LONG_DIR}`,
      `printf '%s\\n' '${'x'.repeat(300)}' > ${LONG_DIR}generated-file-with-a-long-name.txt`,
      `printf '${'a long line that the diff has to wrap '.repeat(4)}\\n' >> notes.txt`,
      'rm gone.txt',
      'curl -sS --max-time 5 https://example.com/ || true',
      'echo preview-output-tail',
      'exit 3',
    ].join('; ');
    const turn = agent.turn();
    const call = turn.toolCall({ toolName: 'Bash', kind: 'execute', args: { command } });
    const running = call.run(commandExecutor({ shell }));

    const card = page.locator(`.permission[data-call-id="${call.callId}"] .preview-card`);
    await card.waitFor();
    await expect(card.getAttribute('data-applicable')).resolves.toBe('false');
    await expect(card.locator('.preview-exit').textContent()).resolves.toBe('exit 3');
    const files = await card
      .locator('.preview-files li')
      .evaluateAll((items) =>
        items.map((li) => [
          li.getAttribute('data-change'),
          li.querySelector('.preview-path')!.textContent,
          li.querySelector('.preview-size')!.textContent,
        ]),
      );
    expect(files).toEqual([
      ['created', `${LONG_DIR}generated-file-with-a-long-name.txt`, '301 B'],
      ['deleted', 'gone.txt', '4 B'],
      ['changed', 'notes.txt', '161 B'],
    ]);
    await expect(card.locator('li[data-change="changed"] .preview-diff').textContent()).resolves.toContain(
      `+${'a long line that the diff has to wrap '.repeat(4)}`,
    );
    await expect(card.locator('.preview-network').textContent()).resolves.toBe(
      'Network tried (refused): example.com:443',
    );
    await expect(card.locator('.preview-verdict').textContent()).resolves.toMatch(
      /^Outside the workspace: it tried the network \(example\.com:443\).*runs again, for real\.$/,
    );
    await card.locator('.preview-output summary').tap();
    await expect(card.locator('.preview-output pre').textContent()).resolves.toContain('preview-output-tail');

    await card.scrollIntoViewIfNeeded();
    expect(await overflowing(page, '.preview-card, .preview-card pre, .permission')).toEqual([]);
    await page.screenshot({ path: `${OUTPUT_DIR}/preview-card-phone.png`, fullPage: true });

    await page.tap(`.permission[data-call-id="${call.callId}"] button[data-kind="reject-once"]`);
    expect((await running).status).toBe('denied');
    turn.end();
    expect((await readdir(world.workspace)).sort()).toEqual(before);
    await expect(readFile(join(world.workspace, 'notes.txt'), 'utf8')).resolves.toBe('one\ntwo\n');
    expect(pageErrors).toEqual([]);
  });
});
