import type { ToolCall } from '../stream/builders.js';

/**
 * The session's calls by the framework's own call id, for what arrives later about a call: its
 * result, its approval, the messages of the subagent it runs (which the framework may start before
 * the adapter has read the call from its stream, so they can wait for it).
 */
export class CallRegistry {
  private readonly calls = new Map<string, ToolCall>();
  private readonly waiting = new Map<string, Set<(call: ToolCall) => void>>();

  add(frameworkId: string, call: ToolCall): void {
    this.calls.set(frameworkId, call);
    const waiters = this.waiting.get(frameworkId);
    this.waiting.delete(frameworkId);
    for (const resolve of waiters ?? []) resolve(call);
  }

  get(frameworkId: string): ToolCall | undefined {
    return this.calls.get(frameworkId);
  }

  /** The call once it has started; rejects with the signal's reason when `signal` aborts first. */
  whenStarted(frameworkId: string, signal?: AbortSignal): Promise<ToolCall> {
    const known = this.calls.get(frameworkId);
    if (known) return Promise.resolve(known);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(frameworkId) ?? new Set();
      this.waiting.set(frameworkId, waiters);
      const started = (call: ToolCall) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(call);
      };
      const onAbort = () => {
        waiters.delete(started);
        reject(signal!.reason as Error);
      };
      waiters.add(started);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Forgets the calls of a turn that ended. */
  forget(frameworkIds: Iterable<string>): void {
    for (const id of frameworkIds) this.calls.delete(id);
  }
}
