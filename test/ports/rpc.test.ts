import { describe, expect, it } from 'vitest';
import { MemoryRpc } from 'happy-session/ports';

describe('MemoryRpc', () => {
  it("runs a handler's afterAnswer tasks in order once its result is serialised, before call() resolves", async () => {
    const rpc = new MemoryRpc();
    const seen: string[] = [];
    const result = { value: 1 };
    rpc.register('count', (_params, { afterAnswer }) => {
      afterAnswer(() => {
        // The caller got a copy: what the task changes does not reach it.
        result.value = 2;
        seen.push('first');
      });
      afterAnswer(() => seen.push('second'));
      return result;
    });
    expect(await rpc.call('count', null)).toEqual({ value: 1 });
    expect(seen).toEqual(['first', 'second']);
  });

  it('a task that throws does not stop the others, and call() rejects with its error', async () => {
    const rpc = new MemoryRpc();
    const seen: string[] = [];
    rpc.register('fails-after', (_params, { afterAnswer }) => {
      afterAnswer(() => {
        throw new Error('follow-up failed');
      });
      afterAnswer(() => seen.push('second'));
      return 'answered';
    });
    await expect(rpc.call('fails-after', null)).rejects.toThrow('follow-up failed');
    expect(seen).toEqual(['second']);
  });
});
