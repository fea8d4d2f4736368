import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTracingDisabled } from '@openai/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Account, connect } from 'happy-session/node';
import { expectV2Invariants } from '../../test/helpers/invariants.js';
import { onRelay, transcript } from '../../test/integrations/onRelay.js';
import type { OnRelay } from '../../test/integrations/onRelay.js';
import { tempDir } from '../../test/transport/helpers.js';
import { runAgent } from './agent.js';
import { scriptedModelProvider } from './scriptedModel.js';

/** The example, with its scripted model, on a relay: prompts and answers from the app, a restart. */
setTracingDisabled(true);
let relay: OnRelay;
let work: { path: string; remove: () => void };
beforeEach(async () => {
  relay = await onRelay();
  work = tempDir('happy-openai-agents-example-');
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

describe('examples/openai-agents', () => {
  it('runs a command once the person allows it, and stops on "stop"', async () => {
    const statePath = join(work.path, 'run.json');
    const agent = runAgent(relay.session, {
      modelProvider: scriptedModelProvider(),
      cwd: work.path,
      statePath,
    });
    const requested = relay.next('permission-request');
    const ended = relay.next('turn-end');
    await send('run echo allowed > allowed.txt && echo written');
    await relay.answer((await requested).callId, { approved: true });
    await ended;
    await send('stop');
    await agent;

    expect(readFileSync(join(work.path, 'allowed.txt'), 'utf8')).toBe('allowed\n');
    expect(existsSync(statePath)).toBe(false);
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'text: I will run it.',
      'call run_command {"command":"echo allowed > allowed.txt && echo written"}',
      '  text: ```\nwritten\n```',
      'end',
      'text: The command printed:\n\nwritten',
      'turn completed',
      'text: Stopping. Bye!',
      'turn completed',
    ]);
  });

  it('a run waiting for an answer when the program stops is resumed by the next one', async () => {
    const statePath = join(work.path, 'run.json');
    const first = runAgent(relay.session, {
      modelProvider: scriptedModelProvider(),
      cwd: work.path,
      statePath,
    });
    const requested = relay.next('permission-request');
    await send('run echo resumed > resumed.txt');
    await requested;
    await relay.session.close();
    await first;
    expect(existsSync(statePath)).toBe(true);
    expect(existsSync(join(work.path, 'resumed.txt'))).toBe(false);

    const again = await connect({
      server: relay.account.relay.url,
      credentials: relay.account.credentials,
      sessionId: relay.session.id,
    });
    const user = await Account.open({
      server: relay.account.relay.url,
      credentials: relay.account.credentials,
    });
    const userSession = await user.session(again.id);
    try {
      const second = runAgent(again, { modelProvider: scriptedModelProvider(), cwd: work.path, statePath });
      let pending = await userSession.pending();
      for (let i = 0; i < 200 && pending.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        pending = await userSession.pending();
      }
      await userSession.answer(pending[0]!, 'allow');
      await waitFor(() => existsSync(join(work.path, 'resumed.txt')));
      await userSession.send('stop');
      await second;
      expect(readFileSync(join(work.path, 'resumed.txt'), 'utf8')).toBe('resumed\n');
      expect(existsSync(statePath)).toBe(false);
      expectV2Invariants(await again.reader.messages());
    } finally {
      await userSession.close();
      await user.close();
      await again.close();
    }
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!check()) throw new Error('never happened');
}
