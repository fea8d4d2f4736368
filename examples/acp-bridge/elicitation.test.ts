import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordKey } from 'happy-session/crypto';
import { viewerUrl } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { until } from '../../test/helpers/until.js';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { CHROMIUM_PATH } from '../../test/viewer/chromium.js';
import { runAcpBridge } from './bridge.js';
import type { AcpBridgeResult } from './bridge.js';
import { fieldsOf, outcomeOf } from './elicitation.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/echoAgent.ts', import.meta.url));

/** An ACP agent's elicitation, asked with `turn.ask()` and answered from the viewer in Chromium. */
describe('acp-bridge elicitation', () => {
  let account: RelayAccount;
  let session: Session;
  let app: AppClient;
  let key: RecordKey;
  let browser: Browser;
  let work: { path: string; remove: () => void };
  let stop: AbortController;
  let bridge: Promise<AcpBridgeResult>;
  const report = () => join(work.path, 'report.jsonl');
  const reported = (): Array<Record<string, unknown>> =>
    existsSync(report())
      ? readFileSync(report(), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];

  beforeEach(async () => {
    account = await relayWithAccount();
    session = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      shutdownSignals: false,
    });
    app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
    key = await app.keyOf(session.id);
    work = tempDir('happy-acp-elicit-');
    stop = new AbortController();
    bridge = runAcpBridge({
      session,
      command: process.execPath,
      args: ['--import', 'tsx', FIXTURE],
      env: { ...process.env, ECHO_AGENT_REPORT: report() },
      signal: stop.signal,
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
  }, 60_000);

  afterEach(async () => {
    await browser.close();
    stop.abort();
    await bridge;
    app.close();
    await session.close();
    await account.relay.close();
    work.remove();
  });

  it("the agent's form is answered from the viewer, and the agent gets accept with each field in its type", async () => {
    const page = await (
      await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true })
    ).newPage();
    await page.goto(viewerUrl(account.relay.url, account.masterSecret, session.id));
    await page.locator('body[data-viewer="ready"]').waitFor();
    await app.send(
      session.id,
      {
        id: `u${randomUUID().replaceAll('-', '')}`,
        time: Date.now(),
        role: 'user',
        type: 'text',
        text: 'elicit',
      },
      key,
    );
    const card = page.locator('form.question[data-state="pending"]');
    await card.waitFor({ timeout: 30_000 });
    await expect(card.locator('.question-title').textContent()).resolves.toBe(
      'Question: How should I set up the project?',
    );
    await page.tap('form.question button[data-label="SQLite"]');
    await page.tap('form.question button[data-label="lint"]');
    await page.tap('form.question button[data-label="ci"]');
    await page.tap('form.question fieldset[data-question-id="tests"] button[data-label="Yes"]');
    await page.fill('form.question input[data-question-id="name"]', 'demo');
    await page.tap('form.question button.question-send');

    await until(() => reported().some((r) => 'elicitation' in r), { timeoutMs: 30_000 });
    expect(reported().find((r) => 'elicitation' in r)).toEqual({
      elicitation: {
        action: 'accept',
        content: { db: 'sqlite', extras: ['lint', 'ci'], tests: true, name: 'demo' },
      },
    });
    await page.locator('form.question[data-state="answered"]').waitFor();
    await until(async () => (await session.reader.messages()).some((m) => m.type === 'turn-end'), {
      timeoutMs: 30_000,
    });
    const messages = await session.reader.messages();
    expect(messages.filter((m) => m.role === 'agent').map((m) => m.type)).toEqual([
      'prompt-taken',
      'turn-start',
      'text',
      'question',
      'question-end',
      'text',
      'turn-end',
    ]);
  }, 90_000);
});

describe('acp-bridge elicitation mapping', () => {
  const request = {
    sessionId: 's',
    mode: 'form' as const,
    message: 'm',
    requestedSchema: {
      type: 'object' as const,
      properties: {
        n: { type: 'integer' as const, title: 'Count' },
        ok: { type: 'boolean' as const },
      },
      required: ['n'],
    },
  };

  it('a number field is free text read back as a number; a dismissal declines and a stop cancels', () => {
    const fields = fieldsOf(request);
    expect(fields.map((f) => f.question)).toEqual([
      {
        id: 'n',
        header: 'Count',
        question: 'Count',
        options: [],
        multiSelect: false,
        allowCustom: true,
        required: true,
      },
      {
        id: 'ok',
        header: 'ok',
        question: 'ok',
        options: ['Yes', 'No'],
        multiSelect: false,
        allowCustom: false,
        required: false,
      },
    ]);
    expect(
      outcomeOf(fields, {
        status: 'answered',
        questionId: 'q',
        via: 'rpc',
        answers: { n: { options: [], custom: '3' }, ok: { options: ['No'] } },
      }),
    ).toEqual({ action: 'accept', content: { n: 3, ok: false } });
    expect(outcomeOf(fields, { status: 'cancelled', questionId: 'q' })).toEqual({ action: 'decline' });
    expect(outcomeOf(fields, { status: 'stopped', questionId: 'q' })).toEqual({ action: 'cancel' });
    expect(outcomeOf(fields, { status: 'timed_out', questionId: 'q' })).toEqual({ action: 'cancel' });
  });
});
