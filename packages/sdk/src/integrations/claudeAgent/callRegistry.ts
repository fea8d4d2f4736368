import type { ToolCall } from '../../stream/builders.js';

/**
 * Where the two halves of the adapter meet, one per session: the mirror (`happyClaude`) starts a
 * session call for each `tool_use` it reads, and the approval hook (`happyCanUseTool`) finds that
 * call by the SDK's `toolUseID`. Claude Code writes the `tool_use` before it asks, but the SDK
 * calls the hook as soon as the question arrives, which may be before the mirror has read the
 * message before it; so the hook waits here for the call, until the mirrors that could write it
 * have all ended.
 */
export class CallRegistry {
  private readonly calls = new Map<string, ToolCall>();
  /** Tool uses the mirror could not write: the hook refuses them at once. */
  private readonly refused = new Set<string>();
  private readonly waiting = new Map<string, Set<(call: ToolCall | undefined) => void>>();
  private mirrors = 0;

  /** A mirror started; the returned function says it ended. */
  mirrorStarted(): () => void {
    this.mirrors += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.mirrors -= 1;
      if (this.mirrors > 0) return;
      // Nobody can write the calls still awaited: the hook answers them no.
      for (const [id, resolvers] of this.waiting) {
        this.waiting.delete(id);
        for (const resolve of resolvers) resolve(undefined);
      }
    };
  }

  /** True while a mirror runs on this session. */
  get mirrored(): boolean {
    return this.mirrors > 0;
  }

  /** The mirror wrote `call` for the SDK's tool use `toolUseId` (again, when it replaced it). */
  announce(toolUseId: string, call: ToolCall): void {
    this.calls.set(toolUseId, call);
    const resolvers = this.waiting.get(toolUseId);
    if (!resolvers) return;
    this.waiting.delete(toolUseId);
    for (const resolve of resolvers) resolve(call);
  }

  /** The mirror could not write a call for `toolUseId`: nobody can be asked about it. */
  refuse(toolUseId: string): void {
    this.refused.add(toolUseId);
    const resolvers = this.waiting.get(toolUseId);
    this.waiting.delete(toolUseId);
    for (const resolve of resolvers ?? []) resolve(undefined);
  }

  /** The call of a tool use, once written; forgotten when its turn is over. */
  known(toolUseId: string): ToolCall | undefined {
    return this.calls.get(toolUseId);
  }

  forget(toolUseId: string): void {
    this.calls.delete(toolUseId);
    this.refused.delete(toolUseId);
  }

  /**
   * The call of `toolUseId`: at once when it is written, else when a mirror writes it. Resolves
   * `undefined` when no mirror runs, when every mirror has ended first, when the mirror could not
   * write it, or when `signal` aborts.
   */
  callFor(toolUseId: string, signal: AbortSignal): Promise<ToolCall | undefined> {
    const known = this.calls.get(toolUseId);
    if (known) return Promise.resolve(known);
    if (this.mirrors === 0 || signal.aborted || this.refused.has(toolUseId))
      return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const settle = (call: ToolCall | undefined): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(call);
      };
      const onAbort = (): void => {
        this.waiting.get(toolUseId)?.delete(settle);
        settle(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const resolvers = this.waiting.get(toolUseId) ?? new Set();
      resolvers.add(settle);
      this.waiting.set(toolUseId, resolvers);
    });
  }
}

const registries = new WeakMap<object, CallRegistry>();

/** The registry of `session`, made on first use. */
export function registryOf(session: object): CallRegistry {
  let registry = registries.get(session);
  if (!registry) {
    registry = new CallRegistry();
    registries.set(session, registry);
  }
  return registry;
}
