import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import type { UserSession } from 'happy-session/user';
import { Account, connect } from 'happy-session/node';
import type { Prompt, Session } from 'happy-session/node';
import { relayWithAccount, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { until } from '../helpers/until.js';

/**
 * The user's side in the SDK (docs/user-side.md), against a real relay and a real `connect()`ed
 * agent with its permission gate: what the app does, and never an end of the agent's session.
 */
let account: RelayAccount;
let agent: Session;
let userAccount: Account;
let user: UserSession;

beforeEach(async () => {
  account = await relayWithAccount();
  agent = await connect({ server: account.relay.url, credentials: account.credentials, title: 'Agent' });
  userAccount = await Account.open({ server: account.relay.url, credentials: account.credentials });
  user = await userAccount.session(agent.id);
});
afterEach(async () => {
  await user.close();
  await userAccount.close();
  await agent.close();
  await account.relay.close();
});

/** Waits until the agent's stream, read back, satisfies `check`. */
function untilStream(check: (messages: SessionMessage[]) => boolean): Promise<SessionMessage[]> {
  return until(
    async () => {
      const messages = await agent.reader.messages();
      return check(messages) && messages;
    },
    { intervalMs: 50, what: 'the stream' },
  );
}

/** A gated call waiting for the user, and its pending request as the user side sees it. */
async function gatedCall(command: string) {
  const turn = agent.turn();
  const call = turn.toolCall({
    toolName: 'Bash',
    title: `Run ${command}`,
    args: { command },
    kind: 'execute',
  });
  const ran: string[] = [];
  const result = call.run(async (args) => {
    ran.push(String(args.command));
    return 'ok';
  });
  await untilStream((m) => fold(m).pendingPermissions.length === 1);
  const [request] = await user.pending();
  return { turn, call, ran, result, request: request as PermissionRequestMessage };
}

describe('UserSession', () => {
  it("sends a prompt as the app does, its files first: the agent's prompts() has the text with the files", async () => {
    const dir = tempDir('happy-user-side-');
    const notes = join(dir.path, 'notes.md');
    writeFileSync(notes, '# Title\n');
    const prompts = agent.prompts();
    const sent = await user.send('Read this', { files: [notes] });
    dir.remove();
    expect(sent.files.map((f) => f.type === 'file' && [f.name, f.mimeType])).toEqual([
      ['notes.md', 'text/markdown'],
    ]);
    const prompt = (await prompts.next()).value as Prompt;
    expect(prompt.text).toBe('Read this');
    expect(prompt.attachments.map((m) => m.id)).toEqual(sent.files.map((f) => f.id));
    expect((await agent.fetchMedia(prompt.attachments[0]!)).toString()).toBe('# Title\n');
    await prompts.return(undefined);
  });

  it('answers by RPC only: the gate applies it, the call runs once, and the gate records it via rpc', async () => {
    const waiting = await gatedCall('echo rpc');
    const answer = await user.answer(waiting.request.callId, 'allow', { channels: 'rpc' });
    if (answer.status !== 'sent') throw new Error('the request was pending');
    expect(answer.recorded).toBeUndefined();
    expect(await answer.rpc).toMatchObject({ ok: true });
    expect((await waiting.result).status).toBe('done');
    expect(waiting.ran).toEqual(['echo rpc']);
    const stored = await untilStream((m) => m.some((x) => x.type === 'permission-response'));
    expect(
      stored.filter((x) => x.type === 'permission-response').map((x) => [x.role, x.optionId, x.via]),
    ).toEqual([['user', 'allow-once', 'rpc']]);
    waiting.turn.end();
  });

  it('answers on the stream only: the gate reads the record, and a denied call never runs', async () => {
    const waiting = await gatedCall('rm -rf build');
    const answer = await user.answer(waiting.request, 'deny-always', { channels: 'stream' });
    if (answer.status !== 'sent') throw new Error('the request was pending');
    expect(answer.rpc).toBeUndefined();
    await answer.recorded;
    expect((await waiting.result).status).toBe('denied');
    expect(waiting.ran).toEqual([]);
    expect(await user.pending()).toEqual([]);
    await expect(user.answer(waiting.request.callId, 'allow')).rejects.toMatchObject({
      code: 'session.request_not_pending',
    });
    waiting.turn.end();
  });

  it('refuses a choice the request does not offer: session.option_not_offered', async () => {
    const waiting = await gatedCall('echo x');
    await expect(user.answer(waiting.request, 'no-such-option')).rejects.toMatchObject({
      code: 'session.option_not_offered',
    });
    await user.answer(waiting.request, 'allow');
    await waiting.result;
    waiting.turn.end();
  });

  it('stops the current turn through the abort RPC: a waiting call is cancelled and the turn ends cancelled', async () => {
    const waiting = await gatedCall('sleep 60');
    const stopped = await user.stop();
    expect(stopped).toEqual({ ok: true, result: { aborted: 1 } });
    expect(waiting.turn.signal.aborted).toBe(true);
    expect((await waiting.result).status).toBe('cancelled');
    expect(waiting.ran).toEqual([]);
    waiting.turn.end();
    const stored = await untilStream((m) => m.some((x) => x.type === 'turn-end'));
    expect(stored.find((x) => x.type === 'turn-end')).toMatchObject({ status: 'cancelled' });
  });

  it("never ends the agent's session: after close() the agent is still active and still gets prompts", async () => {
    await user.send('hello');
    await user.close();
    const sessions = await userAccount.listSessions();
    expect(sessions.find((s) => s.id === agent.id)).toMatchObject({ active: true });
    const again = await userAccount.session(agent.id);
    try {
      const prompts = agent.prompts();
      await again.send('still there?');
      const texts: string[] = [];
      for await (const prompt of prompts) {
        texts.push(prompt.text);
        if (texts.length === 2) break;
      }
      expect(texts).toEqual(['hello', 'still there?']);
    } finally {
      await again.close();
    }
  });
});
