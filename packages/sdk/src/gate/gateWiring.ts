import type { Logger } from '../logger.js';
import type { RpcContext, RpcHandler } from '../ports/rpc.js';
import type { AgentStateMirror } from './agentStateMirror.js';
import type { PermissionBroker } from './broker.js';
import type { PermissionGateOptions, StreamInput } from './gateOptions.js';
import { PermissionPush } from './permissionPush.js';
import type { RespondResult } from './respondResult.js';
import { answerAfterWaiter } from './rpcChannel.js';
import { grantRules } from './ruleGrants.js';
import type { SessionRuleStore } from '../policy/sessionRules.js';

/** The parts of a gate that {@link wireGate} connects. */
export interface GateParts {
  readonly broker: PermissionBroker;
  readonly rules: SessionRuleStore;
  readonly mirror: AgentStateMirror | undefined;
  readonly logger: Logger;
  /** Re-decides the pending requests other than `callId` (after a grant). */
  readonly reevaluate: (callId: string) => void;
  /** The stream channel. */
  readonly readStream: (input: StreamInput) => Promise<RespondResult | undefined>;
  /** The RPC channel. */
  readonly answerRpc: (body: unknown, context: Pick<RpcContext, 'afterAnswer'>) => RespondResult;
}

/**
 * Connects a gate to what its options name: the adapters that follow the broker's events (the
 * agentState mirror, the delayed push, then the rule grants, last since a grant re-decides other
 * requests), the stream channel to `incoming`, and the RPC channel to `rpc`. Returns what ends
 * each of them.
 */
export function wireGate(options: PermissionGateOptions, parts: GateParts): Array<() => void> {
  const ends: Array<() => void> = [];
  const events$ = parts.broker.events$;
  if (parts.mirror) {
    const s = parts.mirror.follow(events$);
    ends.push(() => s.unsubscribe());
  }
  if (options.push) {
    const push = new PermissionPush(options.push, {
      delayMs: options.pushDelayMs ?? 500,
      sessionTitle: options.sessionTitle,
      logger: parts.logger,
    });
    const s = push.follow(events$);
    ends.push(() => s.unsubscribe());
  }
  const grants = grantRules(events$, parts.rules, (settled) => {
    if (options.reevaluatePending !== false) parts.reevaluate(settled.callId);
  });
  ends.push(() => grants.unsubscribe());
  if (options.incoming) {
    const s = options.incoming.subscribe((input) => {
      parts
        .readStream(input)
        .catch((error: unknown) =>
          parts.logger.error('a stream answer could not be read', { error: String(error) }),
        );
    });
    ends.push(() => s.unsubscribe());
  }
  if (options.rpc) {
    const answer: RpcHandler = (body, context) => answerAfterWaiter(parts.answerRpc(body, context));
    ends.push(options.rpc.register('permission', answer));
  }
  return ends;
}
