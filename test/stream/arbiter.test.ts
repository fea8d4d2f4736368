import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Arbiter } from '../../packages/sdk/src/stream/arbiter.js';
import type { Ruling } from '../../packages/sdk/src/stream/arbiter.js';

/**
 * The one arbiter (docs/architecture.md, "One arbiter"): the first valid answer decides an item,
 * once; it is a fold, so the same asks and answers give the same decisions however often they are
 * replayed.
 */
interface Item {
  readonly offered: readonly string[];
}
type Answer = { readonly pick: string } | { readonly close: string };

/** An answer is valid when it picks an offered option; a close always is. */
function judge(item: Item, answer: Answer): Ruling<string, string> {
  if ('close' in answer) return { decision: `closed: ${answer.close}` };
  return item.offered.includes(answer.pick)
    ? { decision: answer.pick }
    : { refusal: `${answer.pick} is not offered` };
}

const arbiter = (options: { maxDecided?: number } = {}): Arbiter<Item, Answer, string, string> =>
  new Arbiter(judge, { ...options, now: () => 42 });

describe('Arbiter', () => {
  it('the first valid answer decides; a refused one leaves the item open; a later one changes nothing', () => {
    const a = arbiter();
    a.ask('r', { offered: ['yes', 'no'] });
    expect(a.decide('r', { pick: 'maybe' })).toEqual({ status: 'refused', refusal: 'maybe is not offered' });
    expect(a.pendingIds()).toEqual(['r']);
    expect(a.decide('r', { pick: 'no' })).toEqual({
      status: 'decided',
      item: { offered: ['yes', 'no'] },
      decision: 'no',
    });
    expect(a.decide('r', { pick: 'yes' })).toEqual({ status: 'already_decided', decision: 'no', at: 42 });
    expect(a.decide('r', { close: 'timeout' })).toEqual({
      status: 'already_decided',
      decision: 'no',
      at: 42,
    });
    expect(a.pendingIds()).toEqual([]);
  });

  it('an item never asked is unknown', () => {
    expect(arbiter().decide('nobody', { pick: 'yes' })).toEqual({ status: 'unknown' });
  });

  it('amend changes what is kept of a decided item, never an open one', () => {
    const a = arbiter();
    a.ask('open', { offered: ['yes'] });
    a.amend('open', 'cancelled');
    expect(a.open('open')).toEqual({ offered: ['yes'] });
    a.ask('r', { offered: ['yes'] });
    a.decide('r', { pick: 'yes' });
    a.amend('r', 'cancelled: not recorded');
    expect(a.decided('r')).toEqual({ decision: 'cancelled: not recorded', at: 42 });
  });

  it('an item asked again replaces the earlier one, open or decided', () => {
    const a = arbiter();
    a.ask('r', { offered: ['yes'] });
    a.decide('r', { pick: 'yes' });
    a.ask('r', { offered: ['again'] });
    expect(a.decided('r')).toBeUndefined();
    expect(a.decide('r', { pick: 'yes' })).toMatchObject({ status: 'refused' });
    expect(a.decide('r', { pick: 'again' })).toMatchObject({ status: 'decided', decision: 'again' });
  });

  it('remembers a bounded number of decided items, forgetting the oldest first', () => {
    const a = arbiter({ maxDecided: 3 });
    for (const id of ['a', 'b', 'c', 'd']) {
      a.ask(id, { offered: ['yes'] });
      a.decide(id, { pick: 'yes' });
    }
    expect(a.decide('a', { pick: 'yes' })).toEqual({ status: 'unknown' });
    expect(['b', 'c', 'd'].map((id) => a.decided(id)?.decision)).toEqual(['yes', 'yes', 'yes']);
  });

  it('is a fold: replaying the same asks and answers gives the same verdicts, item by item', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('ask' as const), id: fc.constantFrom('x', 'y', 'z') }),
      fc.record({
        kind: fc.constant('answer' as const),
        id: fc.constantFrom('x', 'y', 'z', 'w'),
        answer: fc.oneof(
          fc.record({ pick: fc.constantFrom('yes', 'no', 'maybe') }),
          fc.record({ close: fc.constantFrom('cancel', 'timeout') }),
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const run = (): unknown[] => {
          const a = arbiter();
          return steps.map((s) =>
            s.kind === 'ask' ? a.ask(s.id, { offered: ['yes', 'no'] }) : a.decide(s.id, s.answer),
          );
        };
        const live = run();
        expect(run()).toEqual(live);
        // No item is decided twice: after a `decided`, the same id gets `decided` again only once re-asked.
        const decidedSinceAsk = new Map<string, boolean>();
        steps.forEach((s, i) => {
          if (s.kind === 'ask') decidedSinceAsk.set(s.id, false);
          else if ((live[i] as { status: string }).status === 'decided') {
            expect(decidedSinceAsk.get(s.id)).toBe(false);
            decidedSinceAsk.set(s.id, true);
          }
        });
      }),
    );
  });
});
