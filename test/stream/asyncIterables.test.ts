import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncIterableOf } from 'happy-session/internal';
import type { SessionMessage } from 'happy-session';
import type { UserSession } from 'happy-session/user';
import { Account, connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayWithAccount } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { memorySession } from '../helpers/memorySession.js';

/** Takes `n` values of an async iterable and leaves the loop. */
async function take<T>(iterable: AsyncIterable<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  if (n === 0) return out;
  for await (const value of iterable) {
    out.push(value);
    if (out.length === n) break;
  }
  return out;
}

describe('asyncIterableOf', () => {
  it('yields every value in order, also those sent before the loop asked, and ends when the stream completes', async () => {
    const subject = new Subject<number>();
    const iterable = asyncIterableOf(subject);
    subject.next(1); // before the first next(): not lost
    subject.next(2);
    setTimeout(() => {
      subject.next(3);
      subject.complete();
    }, 10);
    const seen: number[] = [];
    for await (const value of iterable) seen.push(value);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("throws the stream's error from the loop", async () => {
    const subject = new Subject<number>();
    const iterable = asyncIterableOf(subject);
    subject.next(1);
    subject.error(new Error('broken'));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const value of iterable) seen.push(value);
      })(),
    ).rejects.toThrow('broken');
    expect(seen).toEqual([1]);
  });

  it('ends quietly when the signal aborts, and unsubscribes', async () => {
    const subject = new Subject<number>();
    const controller = new AbortController();
    const seen: number[] = [];
    const loop = (async () => {
      for await (const value of asyncIterableOf(subject, { signal: controller.signal })) seen.push(value);
    })();
    subject.next(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await loop;
    expect(seen).toEqual([1]);
    expect(subject.observed).toBe(false);
  });

  it('takes nothing with a signal aborted already', async () => {
    const subject = new Subject<number>();
    const controller = new AbortController();
    controller.abort();
    const iterable = asyncIterableOf(subject, { signal: controller.signal });
    subject.next(1);
    expect(await take(iterable, 1)).toEqual([]);
    expect(subject.observed).toBe(false);
  });

  it('unsubscribes on break, and on return() before the first next()', async () => {
    const subject = new Subject<number>();
    const iterable = asyncIterableOf(subject);
    subject.next(1);
    expect(await take(iterable, 1)).toEqual([1]);
    expect(subject.observed).toBe(false);

    const unused = asyncIterableOf(subject);
    expect(subject.observed).toBe(true);
    await unused.return(undefined);
    expect(subject.observed).toBe(false);
  });
});

describe('the SDK’s live streams as async iterables', () => {
  it('writer.messages() and reader.events() yield what was appended, until the signal aborts', async () => {
    const { writer, reader } = memorySession();
    const controller = new AbortController();
    const written = writer.messages({ signal: controller.signal });
    const read = reader.events({ signal: controller.signal });
    writer.service('one');
    writer.service('two');
    expect((await take(written, 2)).map((m) => m.type === 'service' && m.text)).toEqual(['one', 'two']);
    const events = await take(read, 2);
    expect(events.map((e) => e.kind === 'message' && e.message.type === 'service' && e.message.text)).toEqual(
      ['one', 'two'],
    );
    controller.abort();
  });

  describe('on a relay', () => {
    let account: RelayAccount;
    let agent: Session;
    let user: UserSession;
    let userAccount: Account;
    beforeEach(async () => {
      account = await relayWithAccount();
      agent = await connect({ server: account.relay.url, credentials: account.credentials });
      userAccount = await Account.open({ server: account.relay.url, credentials: account.credentials });
      user = await userAccount.session(agent.id);
    });
    afterEach(async () => {
      await user.close();
      await userAccount.close();
      await agent.close();
      await account.relay.close();
    });

    it('prompts({signal}) ends the loop on abort; a prompt not taken waits for the next loop', async () => {
      const controller = new AbortController();
      const seen: string[] = [];
      const loop = (async () => {
        for await (const prompt of agent.prompts({ signal: controller.signal })) {
          seen.push(prompt.text);
          if (seen.length === 1) controller.abort();
        }
      })();
      await user.send('first');
      await loop;
      await user.send('second');
      expect(seen).toEqual(['first']);
      expect((await take(agent.prompts(), 1)).map((p) => p.text)).toEqual(['second']);
    });

    it("the gate's events() yield each request as it is made and settled", async () => {
      const controller = new AbortController();
      const events = agent.gate!.events({ signal: controller.signal });
      const turn = agent.turn();
      const call = turn.toolCall({
        toolName: 'Bash',
        title: 'Run ls',
        args: { command: 'ls' },
        kind: 'execute',
      });
      const result = call.run(() => 'listed');
      expect((await events.next()).value).toMatchObject({ kind: 'requested' });
      // The event comes as the request is made; the user sees it once it is stored.
      let pending = await user.pending();
      while (pending.length === 0) pending = await user.pending();
      await user.answer(pending[0]!, 'allow');
      expect((await result).status).toBe('done');
      expect((await events.next()).value).toMatchObject({ kind: 'settled' });
      controller.abort();
      expect(await events.next()).toEqual({ done: true, value: undefined });
      turn.end();
    });

    it("userMessages() and the user side's events() follow the stream live", async () => {
      const controller = new AbortController();
      const incoming = agent.userMessages({ signal: controller.signal });
      const followed = user.events({ signal: controller.signal });
      await user.send('hello');
      const [message] = await take(incoming, 1);
      expect(message).toMatchObject({ role: 'user', type: 'text', text: 'hello' });
      const turn = agent.turn();
      turn.text('hi');
      turn.end();
      const events = await take(followed, 4);
      expect(events.map((e) => (e.kind === 'message' ? line(e.message) : e.kind))).toEqual([
        'user text hello',
        'agent turn-start',
        'agent text hi',
        'agent turn-end',
      ]);
      controller.abort();
    });
  });
});

function line(message: SessionMessage): string {
  return `${message.role} ${message.type}${message.type === 'text' ? ` ${message.text}` : ''}`;
}
