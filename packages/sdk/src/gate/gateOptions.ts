import type { Observable } from 'rxjs';
import type { Logger } from '../logger.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { GateWriter } from '../stream/gatePorts.js';
import type { CallPreviewer, PluginHost } from '../stream/plugins.js';
import type { RpcRegistry } from '../ports/rpc.js';
import type { PushNotifier, SessionStateStore } from '../ports/sessionState.js';
import { DEFAULT_CEILING } from '../policy/modeCeiling.js';
import type { ModeTableOverrides, PermissionMode } from '../policy/modes.js';
import { parseMode } from '../policy/modes.js';
import type { CompiledRules, RuleLists } from '../policy/policy.js';
import { compileRules } from '../policy/policy.js';
import type { SandboxPolicy } from '../policy/sandboxPolicy.js';
import { validateTimeoutPolicy } from './timeouts.js';
import type { ShellParser } from '../policy/shell.js';

/** A message of the stream with its position, as the gate reads answers from it (docs/permissions.md). */
export interface StreamInput {
  readonly message: SessionMessage;
  /** The record's `seq`: an answer counts only after its request's record. */
  readonly seq: number;
}

/** Options of {@link PermissionGate.create}. */
export interface PermissionGateOptions {
  /** The writer whose tool calls this gate guards; the gate installs itself on it. */
  readonly writer: GateWriter & PluginHost;
  /** Starting mode; default `default`. */
  readonly mode?: PermissionMode | string;
  /** Static rules of the host (`Tool`, `Tool(specifier)`, `Bash(cmd)`, `Bash(cmd:*)`). */
  readonly rules?: RuleLists;
  readonly modeTable?: ModeTableOverrides;
  readonly requiresInteraction?: readonly string[];
  /**
   * Absolute path of the workspace: relative path rules are resolved against it, and edits are
   * allowed automatically only inside it and off protected paths. Without one, every edit asks.
   * `connect()` defaults it to the agent's working directory.
   */
  readonly workspaceRoot?: string;
  /**
   * The sandbox the host runs its shell calls in (`shell.policy` of `happy-session/sandbox`): a
   * Bash call that will run in it is allowed without asking in `default`, `acceptEdits` and
   * `safe-yolo` (deny and ask rules still apply), one asking to leave it asks, and with it
   * `safe-yolo` also allows edits inside the workspace. Unavailable, nothing changes
   * (docs/sandbox.md, "The policy and the sandbox").
   */
  readonly sandbox?: SandboxPolicy;
  /**
   * Previews each call that asks before the person is asked (`shellPreviewer(shell)` of
   * `happy-session/sandbox`): the request carries what it would do, and an allow carries the
   * preview for the executor to apply (docs/sandbox.md, "Preview before approval").
   */
  readonly preview?: CallPreviewer;
  /**
   * The most permissive mode a remote input (the app's mode pick, a legacy answer's `mode`) may
   * switch to; default `safe-yolo`, every mode but `bypassPermissions`. Letting the app switch to
   * bypass is `ceiling: 'bypassPermissions'`. A switch to a stricter mode is always accepted
   * (docs/permissions.md, "Modes").
   */
  readonly ceiling?: PermissionMode;
  /** `full` notes every automatic decision as an agent `service` message naming the rule or mode. */
  readonly audit?: 'none' | 'full';
  /** Re-decide other pending requests when a rule is granted or the user changes the mode; default true. */
  readonly reevaluatePending?: boolean;
  /** Default deadline of every request; default none (a human may take hours). */
  readonly timeoutMs?: number;
  /** What a deadline resolves to; default `deny`. `allow` is refused. */
  readonly onTimeout?: 'deny' | 'cancel';
  /** Where the `permission` RPC is registered. */
  readonly rpc?: RpcRegistry;
  /**
   * Records other clients append, with their `seq` (the stream channel): user
   * `permission-response`s after their request are answers.
   */
  readonly incoming?: Observable<StreamInput>;
  /**
   * The session's agentState and metadata: pending and completed requests are mirrored into
   * agentState, and the real mode is written to `metadata.permissionMode`, for today's app.
   */
  readonly state?: SessionStateStore;
  /** Push notification on each request. */
  readonly push?: PushNotifier;
  /** Push body: the session title. */
  readonly sessionTitle?: string;
  /**
   * How long a request waits before its push goes out; default 500 ms. A request answered sooner
   * (by a rule re-evaluation, a watching client, the local program) sends none.
   */
  readonly pushDelayMs?: number;
  /** The stream so far, when the gate starts on an existing session (recovery). */
  readonly history?: readonly SessionMessage[];
  /**
   * The key the gate seals its own records with (32 bytes or more), kept on this machine and never
   * sent: after a restart, only records sealed with it are the agent's (docs/permissions.md, "The
   * agent's own records"). Default: a random key for this process, so a restarted gate rebuilds no
   * grant. `connect()` keeps one per session in the happy home.
   */
  readonly recordKey?: Uint8Array;
  /** A loaded shell parser; default {@link loadShellParser}. */
  readonly shell?: ShellParser;
  /** False while remote answers are not accepted (local terminal control): they get `permissions.not_allowed`. */
  readonly acceptRemoteAnswers?: () => boolean;
  /**
   * Checks the user's edited arguments (merged over the request's); false gives
   * `permissions.invalid_updated_input`. Edited arguments must also pass the deny rules. Default: any object.
   */
  readonly validateUpdatedInput?: (toolName: string, input: Readonly<Record<string, unknown>>) => boolean;
  readonly logger?: Logger;
}

/**
 * The configuration of a gate, checked: its mode, its ceiling and its rules (the host's, and
 * `change_title`, always allowed). Throws `SdkError` for an invalid rule, mode or ceiling and for
 * `onTimeout: 'allow'`.
 */
export function checkGateOptions(options: PermissionGateOptions): {
  mode: PermissionMode;
  ceiling: PermissionMode;
  rules: CompiledRules;
} {
  const mode = parseMode(options.mode ?? 'default');
  if (!mode.ok) throw mode.error;
  const ceiling = parseMode(options.ceiling ?? DEFAULT_CEILING);
  if (!ceiling.ok) throw ceiling.error;
  const rules = compileRules({ ...options.rules, allow: ['change_title', ...(options.rules?.allow ?? [])] });
  if (!rules.ok) throw rules.error;
  const timeouts = validateTimeoutPolicy({ timeoutMs: options.timeoutMs, onTimeout: options.onTimeout });
  if (!timeouts.ok) throw timeouts.error;
  return { mode: mode.value, ceiling: ceiling.value, rules: rules.value };
}
