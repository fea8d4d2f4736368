import { Observable, Subject, concatMap, of, timer, map, toArray, firstValueFrom, from } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { inTurn } from '../../packages/sdk/src/ports/inTurn.js';

/** A project like the feed's: a value itself, nothing, or an Observable that finishes later. */
type Step = { readonly kind: 'now' | 'skip' | 'later'; readonly n: number };

function project(step: Step): number | Observable<number> | undefined {
  if (step.kind === 'now') return step.n;
  if (step.kind === 'skip') return undefined;
  return timer(1).pipe(map(() => step.n));
}

function asConcatMap(step: Step): Observable<number> {
  const out = project(step);
  return out === undefined ? from([]) : out instanceof Observable ? out : of(out);
}

const steps: Step[] = [
  { kind: 'now', n: 1 },
  { kind: 'later', n: 2 },
  { kind: 'now', n: 3 },
  { kind: 'skip', n: 4 },
  { kind: 'later', n: 5 },
  { kind: 'now', n: 6 },
];

describe('inTurn', () => {
  it('emits what concatMap of the same project emits, in the same order', async () => {
    const ours = await firstValueFrom(from(steps).pipe(inTurn(project), toArray()));
    const theirs = await firstValueFrom(from(steps).pipe(concatMap(asConcatMap), toArray()));
    expect(ours).toEqual([1, 2, 3, 5, 6]);
    expect(ours).toEqual(theirs);
  });

  it('calls the project for a value only once the Observable before it has completed', async () => {
    const source = new Subject<Step>();
    const seen: number[] = [];
    const calls: number[] = [];
    const done = firstValueFrom(
      source.pipe(
        inTurn((step: Step) => {
          calls.push(step.n);
          return project(step);
        }),
        toArray(),
      ),
    );
    source.next({ kind: 'later', n: 1 });
    source.next({ kind: 'now', n: 2 });
    // The second value waits for the first's Observable: its project has not run yet.
    expect(calls).toEqual([1]);
    source.complete();
    seen.push(...(await done));
    expect(calls).toEqual([1, 2]);
    expect(seen).toEqual([1, 2]);
  });

  it('ends with the error of the project or of an inner Observable', async () => {
    await expect(
      firstValueFrom(
        of(1).pipe(
          inTurn(() => {
            throw new Error('boom');
          }),
        ),
      ),
    ).rejects.toThrow('boom');
    await expect(
      firstValueFrom(of(1).pipe(inTurn(() => new Observable<number>((s) => s.error(new Error('inner')))))),
    ).rejects.toThrow('inner');
  });

  it('unsubscribes the inner Observable with the outer one', () => {
    let unsubscribed = false;
    const subscription = of(1)
      .pipe(inTurn(() => new Observable<number>(() => () => (unsubscribed = true))))
      .subscribe();
    subscription.unsubscribe();
    expect(unsubscribed).toBe(true);
  });
});
