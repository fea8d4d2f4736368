import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { SdkError, SessionWriter, MemoryTransport } from 'happy-session';
import { isCuid } from 'happy-session/protocol';
import { decodeBase64 } from 'happy-session/crypto';
import { aesGcmOpen } from 'happy-session/internal';
import type { SessionMessage } from 'happy-session';
import { FlakyTransport } from '../helpers/flakyTransport.js';
import { memorySession } from '../helpers/memorySession.js';

function types(messages: readonly SessionMessage[]): string[] {
  return messages.map((m) => (m.type === 'tool-call-end' && m.error ? `${m.type}(${m.error})` : m.type));
}

describe('SessionWriter', () => {
  it('refuses an invalid message with a typed SdkError and appends nothing', async () => {
    const { writer, transport } = memorySession();
    const seen: SessionMessage[] = [];
    writer.messages$.subscribe((m) => seen.push(m));
    let thrown: unknown;
    try {
      writer.append({ role: 'agent', type: 'permission-response', callId: 'c', optionId: 'x' } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SdkError);
    expect((thrown as SdkError).code).toBe('stream.invalid_message');
    await writer.flush();
    expect(transport.records).toHaveLength(0);
    expect(seen).toHaveLength(0);
  });

  it('stamps cuid2 ids and strictly increasing time even when the clock steps back', async () => {
    const times = [5000, 5000, 4000, 4000, 6000, 1];
    const { writer, reader } = memorySession({ clock: () => times.shift() ?? 0 });
    const turn = writer.turn();
    turn.text('a');
    turn.text('b');
    turn.toolCall({ toolName: 'x' }).end();
    turn.end();
    await writer.flush();
    const read = await reader.messages();
    expect(read.map((m) => m.time)).toEqual([5000, 5001, 5002, 5003, 6000, 6001]);
    for (const m of read) expect(isCuid(m.id)).toBe(true);
    expect(isCuid(turn.id)).toBe(true);
  });

  it('appends exactly one tool-call-end however often end() is called', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'x' });
    const first = call.end({ error: 'boom' });
    expect(call.end()).toBe(first);
    turn.end();
    await writer.flush();
    expect(types(await reader.messages())).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end(boom)',
      'turn-end',
    ]);
  });

  it('a plug-in hook that ends the closing call again still gets exactly one tool-call-end', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'x' });
    writer.install({
      onLifecycle: (e) => {
        if (e.kind === 'call-closing') call.end({ error: 'from listener' });
      },
    });
    call.end({ error: 'first' });
    turn.end();
    await writer.flush();
    expect(types(await reader.messages())).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end(first)',
      'turn-end',
    ]);
  });

  it('a turn that ends first closes its open calls, deepest first, with error cancelled', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const outer = turn.toolCall({ toolName: 'outer' });
    const inner = outer.scope().toolCall({ toolName: 'inner' });
    turn.end('cancelled');
    await writer.flush();
    const read = await reader.messages();
    expect(types(read)).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-start',
      'tool-call-end(cancelled)',
      'tool-call-end(cancelled)',
      'turn-end',
    ]);
    expect(read[3]).toMatchObject({ callId: inner.callId, parentId: outer.callId });
    expect(read[4]).toMatchObject({ callId: outer.callId });
    expect(read[4]!.parentId).toBeUndefined();
  });

  it('refuses writes to an ended turn or an ended call scope', () => {
    const { writer } = memorySession();
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'x' });
    const scope = call.scope();
    call.end();
    expect(() => scope.text('late')).toThrowError(expect.objectContaining({ code: 'stream.scope_closed' }));
    turn.end();
    expect(() => turn.text('late')).toThrowError(expect.objectContaining({ code: 'stream.turn_ended' }));
  });

  it('refuses a subagent title given after the tool-call-start went out', () => {
    const { writer } = memorySession();
    const call = writer.turn().toolCall({ toolName: 'task' });
    expect(() => call.scope({ agentTitle: 'late' })).toThrowError(
      expect.objectContaining({ code: 'stream.agent_title_late' }),
    );
  });

  it('nests steps: a failing step ends itself and each enclosing step with an error naming it', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    await expect(
      turn.step('deploy', (deploy) =>
        deploy.step('build', (build) =>
          build.step('compile', () => {
            throw new Error('exit code 2');
          }),
        ),
      ),
    ).rejects.toThrow('exit code 2');
    turn.end('failed');
    await writer.flush();
    const ends = (await reader.messages()).filter((m) => m.type === 'tool-call-end');
    expect(ends.map((m) => m.type === 'tool-call-end' && m.error)).toEqual([
      'exit code 2',
      'step "compile" failed: exit code 2',
      'step "compile" failed: exit code 2',
    ]);
  });

  it("seals each record's JSON as exactly its UTF-8 bytes: multi-byte text, a lone surrogate, a record larger than the scratch", async () => {
    const { writer, transport, key } = memorySession({ redact: false });
    const appended: SessionMessage[] = [];
    writer.messages$.subscribe((m) => appended.push(m));
    const turn = writer.turn();
    turn.text('naïve café — 日本語 🚀');
    turn.text('lone \ud800 surrogate');
    turn.text(`${'é'.repeat(30_000)}🚀`);
    turn.end();
    await writer.flush();
    expect(transport.records).toHaveLength(appended.length);
    for (const [i, record] of transport.records.entries()) {
      const opened = await aesGcmOpen(decodeBase64(record.content), key.key);
      expect(opened.ok).toBe(true);
      if (opened.ok) expect(opened.value).toEqual(new TextEncoder().encode(JSON.stringify(appended[i])));
    }
  });

  it('messages$ emits every appended message in order', async () => {
    const { writer, reader } = memorySession();
    const collected = firstValueFrom(writer.messages$.pipe(toArray()));
    const turn = writer.turn();
    turn.text('a');
    turn.end();
    await writer.close();
    expect(await collected).toEqual(await reader.messages());
  });

  it('retries lost requests and lost answers with the same localIds: nothing lost, nothing duplicated', async () => {
    const memory = new MemoryTransport();
    const flaky = new FlakyTransport(memory);
    flaky.failuresBefore = 2;
    flaky.failuresAfter = 2;
    const { key } = memorySession();
    const writer = new SessionWriter({ transport: flaky, key, outbox: { retryDelayMs: 1 } });
    const turn = writer.turn();
    for (let i = 0; i < 250; i++) turn.text(`m${i}`);
    turn.end();
    await writer.flush();
    expect(memory.records).toHaveLength(252);
    expect(new Set(memory.records.map((r) => r.localId)).size).toBe(252);
    expect(Math.max(...flaky.batches)).toBeLessThanOrEqual(100);
  });

  it('stops on a 4xx with a typed error: deliveries reject, flush rejects, errors$ reports it', async () => {
    const memory = new MemoryTransport();
    const flaky = new FlakyTransport(memory);
    flaky.rejectNext = new SdkError('transport.not_found', 'Session not found', { details: { status: 404 } });
    const { key } = memorySession();
    const writer = new SessionWriter({ transport: flaky, key });
    const errors: SdkError[] = [];
    writer.errors$.subscribe((e) => errors.push(e));
    const delivery = writer.turn().started;
    await expect(delivery).rejects.toMatchObject({ code: 'transport.not_found' });
    await expect(writer.flush()).rejects.toMatchObject({ code: 'transport.not_found' });
    expect(errors.map((e) => e.code)).toContain('transport.not_found');
    expect(flaky.batches).toEqual([1]);
  });

  it('ready() waits while more than the high-water mark is queued', async () => {
    const memory = new MemoryTransport();
    const flaky = new FlakyTransport(memory);
    flaky.failuresBefore = 1;
    const { key } = memorySession();
    const writer = new SessionWriter({
      transport: flaky,
      key,
      outbox: { highWaterMark: 10, retryDelayMs: 20 },
    });
    const turn = writer.turn();
    for (let i = 0; i < 30; i++) turn.text(String(i));
    expect(writer.pending).toBe(31);
    await writer.ready();
    expect(writer.pending).toBeLessThan(10);
    await writer.flush();
    expect(memory.records).toHaveLength(31);
  });

  it('close() ends open turns as cancelled and refuses later appends', async () => {
    const { writer, reader } = memorySession();
    writer.turn().toolCall({ toolName: 'x' });
    await writer.close();
    expect(types(await reader.messages())).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end(cancelled)',
      'turn-end',
    ]);
    expect(() => writer.turn()).toThrowError(expect.objectContaining({ code: 'stream.closed' }));
  });
});

describe('SessionWriter memory', () => {
  it('does not keep ended turns alive', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { writer } = memorySession();
    const ended = new WeakRef(
      (() => {
        const turn = writer.turn();
        turn.text('done');
        turn.end();
        return turn;
      })(),
    );
    const open = writer.turn();
    await writer.flush();
    // Let the delivery callbacks of the ended turn run out before collecting.
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    expect(ended.deref()).toBeUndefined();
    expect(writer.openTurns).toEqual([open]);
  });
});
