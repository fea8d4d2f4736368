import { describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import type { TextStreamTimers } from 'happy-session/internal';
import { llmDeltas } from '../helpers/llmDeltas.js';
import { memorySession } from '../helpers/memorySession.js';

/** Timers that fire only when the test moves the clock. */
class FakeTimers implements TextStreamTimers {
  private now = 0;
  private readonly due = new Map<number, { at: number; run: () => void }>();
  private next = 1;

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.due.set(id, { at: this.now + ms, run: callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }

  get pending(): number {
    return this.due.size;
  }

  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.due].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > this.now) continue;
      this.due.delete(id);
      timer.run();
    }
  }
}

function texts(messages: readonly SessionMessage[]): string[] {
  return messages.flatMap((m) => (m.type === 'text' && m.role === 'agent' ? [m.text] : []));
}

describe('turn.textStream()', () => {
  it('appends 2,000 deltas with a paragraph break every 200 as 10 messages holding exactly the text, in order', async () => {
    const { writer, reader } = memorySession();
    const timers = new FakeTimers();
    const turn = writer.turn();
    const stream = turn.textStream({ timers });
    const deltas = llmDeltas();
    for (const delta of deltas) {
      expect(delta.length).toBeGreaterThanOrEqual(1);
      expect(delta.length).toBeLessThanOrEqual(5);
      expect(stream.write(delta)).toBe(true);
    }
    await stream.end();
    turn.end();
    await writer.flush();
    const written = texts(await reader.messages());
    expect(written).toHaveLength(10);
    expect(written.join('')).toBe(deltas.join(''));
    for (const text of written) expect(text.endsWith('\n\n')).toBe(true);
    expect(stream.text).toBe(deltas.join(''));
  });

  it('writes a paragraph as soon as its blank line comes, and nothing before', async () => {
    const { writer } = memorySession();
    const seen: string[] = [];
    writer.messages$.subscribe((m) => seen.push(...texts([m])));
    const turn = writer.turn();
    const stream = turn.textStream({ timers: new FakeTimers() });
    stream.write('First para');
    stream.write('graph.\n');
    expect(seen).toEqual([]);
    stream.write('\nSecond');
    expect(seen).toEqual(['First paragraph.\n\n']);
    await stream.end();
    expect(seen).toEqual(['First paragraph.\n\n', 'Second']);
    turn.end();
  });

  it('writes what it holds once no delta came for the idle window', () => {
    const { writer } = memorySession();
    const seen: string[] = [];
    writer.messages$.subscribe((m) => seen.push(...texts([m])));
    const timers = new FakeTimers();
    const turn = writer.turn();
    const stream = turn.textStream({ timers, idleMs: 500 });
    stream.write('Let me ');
    timers.advance(400);
    stream.write('check');
    timers.advance(400);
    expect(seen).toEqual([]);
    timers.advance(100);
    expect(seen).toEqual(['Let me check']);
    expect(timers.pending).toBe(0);
    stream.write(' the tests.');
    timers.advance(500);
    expect(seen).toEqual(['Let me check', ' the tests.']);
    turn.end();
  });

  it('cuts a message at the size bound, after a space', () => {
    const { writer } = memorySession();
    const seen: string[] = [];
    writer.messages$.subscribe((m) => seen.push(...texts([m])));
    const turn = writer.turn();
    const stream = turn.textStream({ timers: new FakeTimers(), maxChars: 40 });
    const words = 'word '.repeat(30);
    for (const c of words) stream.write(c);
    stream.flush();
    expect(seen.join('')).toBe(words);
    expect(seen.length).toBeGreaterThan(3);
    for (const part of seen) {
      expect(part.length).toBeLessThanOrEqual(40);
      expect(part.endsWith(' ')).toBe(true);
    }
    turn.end();
  });

  it('keeps a code block with blank lines in one message', async () => {
    const { writer } = memorySession();
    const seen: string[] = [];
    writer.messages$.subscribe((m) => seen.push(...texts([m])));
    const turn = writer.turn();
    const stream = turn.textStream({ timers: new FakeTimers() });
    const code = 'Here:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nDone.';
    for (const c of code) stream.write(c);
    await stream.end();
    expect(seen).toEqual(['Here:\n\n', '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n', 'Done.']);
    turn.end();
  });

  it('writes reasoning with thinking: true', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const stream = turn.textStream({ thinking: true, timers: new FakeTimers() });
    stream.write('Hmm.');
    await stream.end();
    turn.end();
    await writer.flush();
    const text = (await reader.messages()).find((m) => m.type === 'text');
    expect(text).toMatchObject({ text: 'Hmm.', thinking: true });
    expect(stream.deliveries).toHaveLength(1);
  });

  it('ends with the turn: what it holds is written before turn-end, later writes return false', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const stream = turn.textStream({ timers: new FakeTimers() });
    stream.write('half a sentence');
    turn.end();
    expect(stream.ended).toBe(true);
    expect(stream.write(' more')).toBe(false);
    await writer.flush();
    const types = (await reader.messages()).map((m) => (m.type === 'text' ? `text:${m.text}` : m.type));
    expect(types).toEqual(['turn-start', 'text:half a sentence', 'turn-end']);
  });

  it('inside a call, ends with the call: its text is written before tool-call-end', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'research' });
    const stream = call.scope().textStream({ timers: new FakeTimers() });
    stream.write('found it');
    call.end();
    expect(stream.ended).toBe(true);
    turn.end();
    await writer.flush();
    const messages = await reader.messages();
    const text = messages.find((m) => m.type === 'text');
    expect(text).toMatchObject({ text: 'found it', parentId: call.callId });
    expect(messages.map((m) => m.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'text',
      'tool-call-end',
      'turn-end',
    ]);
  });

  it("stops with the turn's stop: the text so far is stored and the turn ends cancelled", async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const stream = turn.textStream({ timers: new FakeTimers() });
    const deltas = llmDeltas(500);
    let accepted = 0;
    for (const [i, delta] of deltas.entries()) {
      if (i === 321) turn.abort(new Error('the user pressed stop'));
      if (!stream.write(delta)) break;
      accepted += 1;
    }
    expect(accepted).toBe(321);
    expect(stream.ended).toBe(true);
    turn.end();
    await writer.flush();
    const messages = await reader.messages();
    expect(texts(messages).join('')).toBe(deltas.slice(0, 321).join(''));
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
  });

  it('consume() writes an async iterable and stops reading it at the stop', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    let pulled = 0;
    async function* model(): AsyncGenerator<string> {
      for (let i = 0; i < 100; i++) {
        pulled += 1;
        if (i === 10) turn.abort();
        yield `d${i} `;
      }
    }
    await turn.textStream({ timers: new FakeTimers() }).consume(model());
    expect(pulled).toBe(11);
    turn.end();
    await writer.flush();
    const written = texts(await reader.messages()).join('');
    expect(written).toBe(Array.from({ length: 10 }, (_, i) => `d${i} `).join(''));
  });

  it('refuses an idle window that is not positive', () => {
    const { writer } = memorySession();
    const turn = writer.turn();
    let thrown: unknown;
    try {
      turn.textStream({ idleMs: 0 });
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'stream.invalid_options')).toBe(true);
    turn.end();
  });
});
