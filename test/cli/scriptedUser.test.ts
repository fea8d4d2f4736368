import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Account } from 'happy-session/node';
import { ScriptedUser } from '../../packages/cli/src/demo/scriptedUser.js';
import { permissionAgent, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

let env: RelayHome;
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  await env.close();
});

describe('the demo’s scripted user', () => {
  it('answers a permission request with allow-once, once, on the stream and by RPC', async () => {
    const agent = await permissionAgent(env.relay, env.credentials);
    const account = await Account.open({ server: env.relay.url, credentials: env.credentials });
    const user = await ScriptedUser.open(account, agent.session.id);
    expect(await agent.response).toMatchObject({
      role: 'user',
      callId: agent.call.callId,
      optionId: 'allow-once',
    });
    expect(await agent.rpc).toEqual({
      callId: agent.call.callId,
      optionId: 'allow-once',
      requestId: agent.requestId,
    });
    agent.call.end();
    agent.turn.end();
    await agent.session.writer.flush();
    await user.close();
    expect(user.answers.map((a) => [a.request.callId, a.option.id])).toEqual([
      [agent.call.callId, 'allow-once'],
    ]);
    const responses = (await user.session.reader.messages()).filter((m) => m.type === 'permission-response');
    expect(responses).toHaveLength(1);
    await agent.session.close();
    await account.close();
  });

  it('leaves a request unanswered when its script picks nothing', async () => {
    const agent = await permissionAgent(env.relay, env.credentials);
    const account = await Account.open({ server: env.relay.url, credentials: env.credentials });
    let asked!: (callId: string) => void;
    const seen = new Promise<string>((resolve) => (asked = resolve));
    const user = await ScriptedUser.open(account, agent.session.id, (request) => {
      asked(request.callId);
      return undefined;
    });
    expect(await seen).toBe(agent.call.callId);
    await user.send('are you there?');
    const prompts = agent.session.prompts();
    expect((await prompts.next()).value?.text).toBe('are you there?');
    await user.close();
    expect(user.answers).toEqual([]);
    await agent.session.close();
    expect(await agent.response).toBeUndefined();
    await account.close();
  });
});
