import { describe, expect, it } from 'vitest';
import { watchAbort } from '../../packages/sdk/src/ports/abortWatch.js';

describe('watchAbort', () => {
  it('calls every watcher still watching when the signal aborts, once, and none that stopped watching', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    watchAbort(controller.signal, () => calls.push('a'));
    const stopB = watchAbort(controller.signal, () => calls.push('b'));
    watchAbort(controller.signal, () => calls.push('c'));
    stopB();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(['a', 'c']);
  });

  it('the same callback watched twice is called twice, and stopping one watch keeps the other', () => {
    const controller = new AbortController();
    let count = 0;
    const callback = (): void => void count++;
    const stop = watchAbort(controller.signal, callback);
    watchAbort(controller.signal, callback);
    stop();
    controller.abort();
    expect(count).toBe(1);
  });

  it('holds one listener on the signal however many watch it: no listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      let aborted = 0;
      for (let i = 0; i < 100; i++) watchAbort(controller.signal, () => void aborted++);
      // Positive control: plain listeners on a second signal do trip the warning.
      const plain = new AbortController();
      for (let i = 0; i < 11; i++) plain.signal.addEventListener('abort', () => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      expect(aborted).toBe(100);
      expect(warnings.filter((name) => name === 'MaxListenersExceededWarning')).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
