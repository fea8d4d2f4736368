import { SdkError } from '../errors.js';
import type { RunContext, ToolCall } from '../stream/builders.js';
import type { PermissionDecision } from '../stream/plugins.js';

/**
 * The session's calls by the framework's own call id, for what arrives later about a call: its
 * result, its approval, the messages of the subagent it runs (which the framework may start before
 * the adapter has read the call from its stream, so they can wait for it).
 */
export class CallRegistry {
  private readonly calls = new Map<string, ToolCall>();
  private readonly waiting = new Map<string, Set<(call: ToolCall) => void>>();
  /** The gate's allow of each call the person approved, for {@link runContext}. */
  private readonly allowed = new Map<string, PermissionDecision>();

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

  /** Keeps the gate's allow of an approved call. */
  allow(frameworkId: string, decision: PermissionDecision): void {
    this.allowed.set(frameworkId, decision);
  }

  /**
   * What `commandExecutor()` needs to run an approved call's command from the framework's tool
   * (docs/integrations.md, "Running a tool's command"): the call, the allow, and a signal that ends
   * with the call's stop and `signal`.
   * @throws {SdkError} `integration.not_approved` for a call the gate did not allow.
   */
  async runContext(frameworkId: string, signal?: AbortSignal): Promise<RunContext> {
    const call = await this.whenStarted(frameworkId, signal);
    const decision = this.allowed.get(frameworkId);
    if (decision === undefined)
      throw new SdkError(
        'integration.not_approved',
        `Tool call ${frameworkId} was not allowed by the person through the bridge, so it has no allow to run under.`,
        { hint: 'give the tool needsApproval: true and its kind in the bridge’s tools' },
      );
    return { call, decision, signal: signal ? AbortSignal.any([call.signal, signal]) : call.signal };
  }

  /** Forgets the calls of a turn that ended. */
  forget(frameworkIds: Iterable<string>): void {
    for (const id of frameworkIds) {
      this.calls.delete(id);
      this.allowed.delete(id);
    }
  }
}
