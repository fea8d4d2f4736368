import type { Observable, Subscription } from 'rxjs';
import type { Logger } from '../logger.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { SessionStateStore, StateObject } from '../ports/sessionState.js';
import { StateWriteQueue } from '../ports/stateWriteQueue.js';
import type { RequestEvent } from './gateEvents.js';
import type { GatedCall } from '../stream/gatePorts.js';
import { ruleForCall } from '../policy/sessionRules.js';

/** One pending prompt as today's app reads it from `agentState.requests` (docs/wire.md §4.3). */
interface MirroredRequest {
  tool: string;
  arguments: unknown;
  createdAt: number;
  toolUseId: string;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...(value as object) } : {};
}

/** The legacy `decision` word for a decision (docs/wire.md §4.3, §7.3). */
function legacyDecision(decision: PermissionDecision): string | undefined {
  if (decision.outcome === 'allow')
    return decision.kind === 'allow-always' ? 'approved_for_session' : 'approved';
  if (decision.outcome === 'deny') return decision.interrupt ? 'abort' : 'denied';
  return undefined;
}

/**
 * Projects the gate's requests into `agentState.requests` / `completedRequests`, so today's Happy
 * app shows its permission card and status (docs/wire.md §4.3, §7.3; docs/permissions-requirements.md R13.3). The stream stays
 * the source of truth: a failed mirror write is logged and never changes a decision.
 */
export class AgentStateMirror {
  private readonly writes: StateWriteQueue;

  /**
   * @param shown - the arguments of a call as the app may show them: the gate passes them through
   *   the writer's redaction (docs/redaction.md), so agentState never holds a secret the stream hides.
   */
  constructor(
    state: SessionStateStore,
    logger: Logger,
    private readonly shown: (call: GatedCall) => unknown = (call) => call.args,
  ) {
    this.writes = new StateWriteQueue(state, logger);
  }

  /**
   * Follows the gate's events: each request is added when made and moved to `completedRequests` when
   * settled. The arguments are redacted when the write is made, not when the event comes: a
   * settled request's tool starts first (docs/permissions.md, "What follows an answer").
   */
  follow(events$: Observable<RequestEvent>): Subscription {
    return events$.subscribe((event) => {
      const call = event.request.call;
      const createdAt = event.request.createdAt;
      // Keyed by the request record's id (`toolUseId` names the call): the legacy answer's `id`
      // then names the very request it answers (docs/permissions.md, "Answers name their request").
      const key = event.request.recordId;
      if (event.kind === 'requested') {
        void this.update((s) =>
          this.addedTo(s, key, call.callId, call.toolName, this.shown(call), createdAt),
        );
        return;
      }
      const { decision } = event.settled;
      const edited = event.answer?.updatedInput !== undefined;
      void this.update((s) => {
        const args = this.shown(call);
        // The rule an allow-always answer grants: what today's app shows as "don't ask again".
        const rule =
          decision.kind === 'allow-always' && !edited
            ? ruleForCall(call.toolName, args, call.kind)
            : undefined;
        return this.completedIn(
          s,
          key,
          call.callId,
          decision,
          rule !== undefined ? { allowTools: [rule] } : {},
          {
            toolName: call.toolName,
            args,
            createdAt,
          },
        );
      });
    });
  }

  /**
   * Moves a request to `completedRequests` with its status. `request` fills in the tool, arguments
   * and time for a request that never was pending (one the policy decided at once), so the app can
   * show the call as denied (docs/wire.md §6.6, "Permissions").
   */
  completed(
    callId: string,
    decision: PermissionDecision,
    extra: { allowTools?: string[]; mode?: string } = {},
    request?: { toolName: string; args: unknown; createdAt: number },
  ): Promise<void> {
    return this.update((s) => this.completedIn(s, callId, callId, decision, extra, request));
  }

  /** Adds a pending request, and drops completed entries of the same call, so a re-raise shows. */
  private addedTo(
    s: StateObject,
    key: string,
    callId: string,
    toolName: string,
    args: unknown,
    createdAt: number,
  ): StateObject {
    const requests = record(s.requests);
    const completed = record(s.completedRequests);
    for (const [id, value] of Object.entries(completed)) {
      if (id === callId || record(value).toolUseId === callId) delete completed[id];
    }
    const entry: MirroredRequest = { tool: toolName, arguments: args, createdAt, toolUseId: callId };
    requests[key] = entry;
    return { ...s, requests, completedRequests: completed };
  }

  private completedIn(
    s: StateObject,
    key: string,
    callId: string,
    decision: PermissionDecision,
    extra: { allowTools?: string[]; mode?: string },
    request: { toolName: string; args: unknown; createdAt: number } | undefined,
  ): StateObject {
    const requests = record(s.requests);
    const completedRequests = record(s.completedRequests);
    const previous = {
      ...(request ? { tool: request.toolName, arguments: request.args, createdAt: request.createdAt } : {}),
      ...record(requests[key]),
    };
    delete requests[key];
    const status =
      decision.outcome === 'allow' ? 'approved' : decision.outcome === 'deny' ? 'denied' : 'canceled';
    const legacy = legacyDecision(decision);
    completedRequests[key] = {
      ...previous,
      toolUseId: callId,
      completedAt: Date.now(),
      status,
      ...(decision.message !== undefined ? { reason: decision.message } : {}),
      ...(legacy !== undefined ? { decision: legacy } : {}),
      ...(extra.mode !== undefined ? { mode: extra.mode } : {}),
      // The CLI writes allowTools and the app reads allowedTools (docs/wire.md §4.3): write both.
      ...(extra.allowTools ? { allowTools: extra.allowTools, allowedTools: extra.allowTools } : {}),
    };
    return { ...s, requests, completedRequests };
  }

  /** Moves every pending request to `completedRequests` as canceled (start-up, shutdown). */
  cancelAll(reason: string): Promise<void> {
    return this.update((s) => {
      const requests = record(s.requests);
      const completedRequests = record(s.completedRequests);
      for (const [id, value] of Object.entries(requests)) {
        completedRequests[id] = { ...record(value), completedAt: Date.now(), status: 'canceled', reason };
      }
      return { ...s, requests: {}, completedRequests };
    });
  }

  /** Resolves when every write so far has settled. */
  settled(): Promise<void> {
    return this.writes.settled();
  }

  /** Queues a change ({@link StateWriteQueue}). */
  private update(fn: (state: StateObject) => StateObject): Promise<void> {
    return this.writes.update(fn);
  }
}
