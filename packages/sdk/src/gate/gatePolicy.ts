import type { PermissionDecision } from '../stream/plugins.js';
import type { GatedCall } from '../stream/gatePorts.js';
import { decisionFromPolicy } from './decision.js';
import type { ModeTableOverrides, PermissionMode } from '../policy/modes.js';
import type { SandboxPolicy } from '../policy/sandboxPolicy.js';
import type { CompiledRules, PolicyResult } from '../policy/policy.js';
import { evaluatePolicy } from '../policy/policy.js';
import { SessionRuleStore } from '../policy/sessionRules.js';
import type { ShellParser } from '../policy/shell.js';

/** What the policy reads of a call: its tool, its kind and its arguments. */
export type JudgedCall = Pick<GatedCall, 'toolName' | 'kind' | 'args'>;

/** The fixed inputs of a gate's policy, set at configuration. */
export interface GatePolicySettings {
  readonly rules: CompiledRules;
  readonly shell: ShellParser;
  readonly modeTable?: ModeTableOverrides;
  readonly requiresInteraction?: readonly string[];
  readonly workspaceRoot?: string;
  readonly sandbox?: SandboxPolicy;
}

/**
 * What a gate decides by without asking anyone: its host rules, the session rules granted so far
 * and the current mode (permissions-policy.md). The gate owns when these change; this turns them
 * into a decision for a call.
 */
export class GatePolicy {
  readonly sessionRules = new SessionRuleStore();

  constructor(
    readonly settings: GatePolicySettings,
    /** Set only by `ModeControl`, which notes each change in the stream and the metadata. */
    public mode: PermissionMode,
  ) {}

  /**
   * The policy's verdict for `call`, judged with `args` (the call's own unless the user edited
   * them). An edit (`edited`) is judged as a line nobody will be asked about again: a deny rule
   * that cannot be checked on it denies (docs/permissions-policy.md, "Edited arguments are judged").
   */
  evaluate(
    call: JudgedCall,
    args: Readonly<Record<string, unknown>> = call.args,
    edited = false,
  ): PolicyResult {
    const s = this.settings;
    return evaluatePolicy(
      {
        mode: this.mode,
        rules: s.rules,
        sessionRules: this.sessionRules.listRules(),
        shell: s.shell,
        ...(s.modeTable ? { modeTable: s.modeTable } : {}),
        ...(s.requiresInteraction ? { requiresInteraction: s.requiresInteraction } : {}),
        ...(s.workspaceRoot ? { workspaceRoot: s.workspaceRoot } : {}),
        ...(s.sandbox ? { sandbox: s.sandbox } : {}),
      },
      {
        toolName: call.toolName,
        ...(call.kind !== undefined ? { kind: call.kind } : {}),
        args,
        ...(edited ? { edited } : {}),
      },
    );
  }

  /** The automatic decision for `call`, or undefined when the user must be asked. */
  decide(call: JudgedCall): PermissionDecision | undefined {
    return decisionFromPolicy(this.evaluate(call));
  }
}
