/**
 * `happy-session/permissions`: the permission gate, the policy API and their types. The gate holds
 * gated tool calls until someone answers (docs/permissions.md); the policy decides what may run
 * unasked (modes, rules, tool kinds, Bash commands; docs/permissions-policy.md). The policy's
 * helpers (shell words, rule matching, globs) are not exported. Each group's reason: docs/api.md,
 * "happy-session/permissions".
 */

// The gate: holds gated calls until an answer, and reports what answers got (docs/permissions.md).
export { PermissionGate } from './gate/gate.js';
export type { PermissionGateOptions, ModeSource, StreamInput } from './gate/gate.js';
export type { LocalAnswer } from './gate/answers.js';
export type { AnswerErrorCode } from './stream/answerResult.js';
export type { AppliedAnswer, SettledRequest } from './gate/gateEvents.js';
export type { GateEvent, RequestView } from './gate/gateEvents.js';
export type { SessionRule, SessionRuleBehavior } from './policy/sessionRules.js';
export type { PermissionsErrorCode } from './errorCodes.js';

// What a request offers and how long it waits: the defaults and limits a caller checks against.
export {
  DEFAULT_PERMISSION_OPTIONS,
  MAX_OPTIONS,
  MAX_OPTION_ID_LENGTH,
  MAX_OPTION_LABEL_LENGTH,
  validateOptions,
} from './policy/options.js';
export { MAX_TIMEOUT_MS } from './ports/wait.js';
export type { TimeoutAction, TimeoutPolicy } from './gate/timeouts.js';

// Modes and the ceiling of remote changes (docs/permissions.md, "Modes").
export { DEFAULT_MODE_TABLE, PERMISSION_MODES, isPermissionMode, parseMode } from './policy/modes.js';
export type { ModeCell, ModeTableOverrides, PermissionMode } from './policy/modes.js';
export { DEFAULT_CEILING } from './policy/modeCeiling.js';

// The policy: rules, tool kinds, Bash commands and their evaluation, usable without a gate
// (docs/permissions-policy.md).
export { compileRules, describePolicyResult, evaluatePolicy } from './policy/policy.js';
export type {
  CompiledRules,
  PolicyCall,
  PolicyConfig,
  PolicyReason,
  PolicyResult,
  RuleList,
  RuleLists,
} from './policy/policy.js';
export type { SandboxPolicy } from './policy/sandboxPolicy.js';
export { formatRule, parseRule } from './policy/rules.js';
export type { ParsedRule } from './policy/rules.js';
export { TOOL_KINDS, canonicalToolName, classifyTool } from './policy/toolKinds.js';
export type { ToolKind } from './policy/toolKinds.js';
export { loadShellParser } from './policy/shell.js';
export type {
  LoadShellParserOptions,
  ShellCommand,
  ShellHazard,
  ShellParser,
  ShellSplit,
} from './policy/shell.js';
