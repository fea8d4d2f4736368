import { Observable } from 'rxjs';
import type { OperatorFunction, Subscription } from 'rxjs';

/**
 * `concatMap` for a project that mostly answers at once: values come in one at a time and in
 * order, as with `concatMap`, but a value the project returns itself is emitted in place, and
 * `undefined` emits nothing; only an Observable it returns is subscribed to, the values arriving
 * meanwhile waiting their turn. The record feed takes each live hint this way: a `concatMap` of
 * `of(hint)` subscribed an inner Observable per record, most of what a hint cost it
 * (docs/performance.md, "Cutting the client's CPU per message").
 */
export function inTurn<T, R>(project: (value: T) => R | Observable<R> | undefined): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const waiting: T[] = [];
      let busy = false;
      let sourceDone = false;
      let inner: Subscription | undefined;
      const completeIfDone = (): void => {
        if (sourceDone && !busy && waiting.length === 0) subscriber.complete();
      };
      const drain = (): void => {
        while (!busy && waiting.length > 0 && !subscriber.closed) {
          let out: R | Observable<R> | undefined;
          try {
            out = project(waiting.shift()!);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          if (out === undefined) continue;
          if (!(out instanceof Observable)) {
            subscriber.next(out);
            continue;
          }
          busy = true;
          inner = out.subscribe({
            next: (value) => subscriber.next(value),
            error: (error: unknown) => subscriber.error(error),
            complete: () => {
              busy = false;
              inner = undefined;
              drain();
              completeIfDone();
            },
          });
          if (!busy) inner = undefined;
        }
      };
      const outer = source.subscribe({
        next: (value) => {
          waiting.push(value);
          drain();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          completeIfDone();
        },
      });
      return () => {
        outer.unsubscribe();
        inner?.unsubscribe();
      };
    });
}
