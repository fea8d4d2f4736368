import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectV2Invariants } from '../../test/helpers/invariants.js';
import { onRelay, transcript } from '../../test/integrations/onRelay.js';
import type { OnRelay } from '../../test/integrations/onRelay.js';
import { tempDir } from '../../test/transport/helpers.js';
import { runAgent } from './agent.js';
import { scriptedModel } from './scriptedModel.js';

/** The example, with its scripted model, on a relay: prompts and answers from the app. */
let relay: OnRelay;
let work: { path: string; remove: () => void };
beforeEach(async () => {
  relay = await onRelay();
  work = tempDir('happy-ai-sdk-example-');
});
afterEach(async () => {
  await relay.close();
  work.remove();
});

async function send(text: string): Promise<void> {
  await relay.app.send(
    relay.session.id,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    relay.key,
  );
}

describe('examples/ai-sdk', () => {
  it('runs a command once the person allows it, declines one they deny, and stops on "stop"', async () => {
    const agent = runAgent(relay.session, { model: scriptedModel(), cwd: work.path });

    let requested = relay.next('permission-request');
    let ended = relay.next('turn-end');
    await send('run echo allowed > allowed.txt && echo written');
    await relay.answer((await requested).callId, { approved: true });
    await ended;

    requested = relay.next('permission-request');
    ended = relay.next('turn-end');
    await send('run touch denied.txt');
    await relay.answer((await requested).callId, {
      approved: false,
      decision: 'denied',
      reason: 'no new files',
    });
    await ended;

    await send('stop');
    await agent;

    expect(existsSync(join(work.path, 'allowed.txt'))).toBe(true);
    expect(existsSync(join(work.path, 'denied.txt'))).toBe(false);
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    const lines = transcript(messages);
    expect(lines.slice(0, 6)).toEqual([
      'text: I will run it.',
      'call run_command {"command":"echo allowed > allowed.txt && echo written"}',
      '  text: ```\nwritten\n```',
      'end',
      'text: The command printed:\n\nwritten',
      'turn completed',
    ]);
    expect(lines.slice(6, 8)).toEqual([
      'text: I will run it.',
      'call run_command {"command":"touch denied.txt"}',
    ]);
    expect(lines[8]).toMatch(/^end ! /);
    expect(lines.slice(9)).toEqual([
      'text: Not run: no new files.',
      'turn completed',
      'text: Stopping. Bye!',
      'turn completed',
    ]);
  });
});
