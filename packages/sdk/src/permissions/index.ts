/**
 * The transport-free half of permission gating: decisions, options, tool kinds, modes, rules,
 * shell splitting, policy evaluation, session rules and the `permission` RPC bodies. The gate
 * (arbitration, channels, stream integration) builds on these. See docs/permissions-policy.md.
 */
export { cancelledDecision, decisionFromOption, decisionFromPolicy } from './decision.js';
export {
  mapLegacyAnswer,
  parseLegacyPermissionBody,
  parsePermissionRpcBody,
  parseV2PermissionBody,
} from './legacyRpc.js';
export type {
  LegacyAnswer,
  LegacyDecision,
  LegacyPendingRequest,
  LegacyPermissionBody,
  PermissionRpcBody,
  PermissionRpcError,
  PermissionRpcErrorCode,
  V2PermissionBody,
} from './legacyRpc.js';
export {
  DEFAULT_MODE_TABLE,
  MODE_ALIASES,
  PERMISSION_MODES,
  isPermissionMode,
  modeCell,
  parseMode,
} from './modes.js';
export type { ModeCell, ModeRow, ModeTableOverrides, PermissionMode } from './modes.js';
export { LEAVE_SANDBOX_ARG } from './sandboxPolicy.js';
export type { SandboxPolicy } from './sandboxPolicy.js';
export {
  DEFAULT_PERMISSION_OPTIONS,
  MAX_OPTIONS,
  MAX_OPTION_ID_LENGTH,
  MAX_OPTION_LABEL_LENGTH,
  PERMISSION_OPTION_KINDS,
  findOptionByKind,
  isAllowKind,
  isPermissionOptionKind,
  validateOptions,
} from './options.js';
export type { OptionsErrorCode } from './options.js';
export { globToRegExp, matchPathPattern } from './pathGlob.js';
export { editConcern } from './editScope.js';
export type { PathConcern } from './workspace.js';
export { baseName, executedCommands } from './executedCommands.js';
export type { ExecutedCommands } from './executedCommands.js';
export { UNSAFE_SHELL_CHARACTERS, decodeAnsiC } from './shellWords.js';
export type { ShellWord } from './shellWords.js';
export { compileRules, describePolicyResult, evaluatePolicy } from './policy.js';
export type {
  CompiledRule,
  CompiledRules,
  PolicyCall,
  PolicyConfig,
  PolicyReason,
  PolicyResult,
  RuleList,
  RuleLists,
  RuleRef,
  ShellConcern,
} from './policy.js';
export { matchCallRule, matchCommandText, matchWords, ruleWords, stripBlanks } from './ruleMatch.js';
export type { RuleMatch, RuleMatchContext } from './ruleMatch.js';
export { MAX_RULE_LENGTH, PATH_RULE_TOOLS, formatRule, parseRule } from './rules.js';
export type { ParsedRule, RuleErrorCode } from './rules.js';
export { SessionRuleStore, ruleForCall, sessionBehaviorOf } from './sessionRules.js';
export type {
  PermissionAnswer,
  PermissionMessageLike,
  SessionRule,
  SessionRuleBehavior,
} from './sessionRules.js';
export { MAX_SHELL_COMMAND_LENGTH, loadShellParser } from './shell.js';
export type {
  LoadShellParserOptions,
  ShellCommand,
  ShellHazard,
  ShellHazardKind,
  ShellParser,
  ShellSplit,
  ShellUnparsableReason,
} from './shell.js';
export { MAX_TIMEOUT_MS, TIMEOUT_MESSAGE, timeoutDecision, validateTimeoutPolicy } from './timeouts.js';
export type { TimeoutAction, TimeoutErrorCode, TimeoutPolicy } from './timeouts.js';
export {
  DEFAULT_REQUIRES_INTERACTION,
  KNOWN_TOOL_KINDS,
  TOOL_KINDS,
  TOOL_NAME_ALIASES,
  EDIT_KINDS,
  canonicalToolName,
  classifyTool,
  isToolKind,
  toolKindsOf,
} from './toolKinds.js';
export type { ToolKind } from './toolKinds.js';
export { PermissionGate } from './gate.js';
export type { PermissionGateOptions, ModeSource, StreamInput } from './gate.js';
export { MAX_SETTLED_REQUESTS } from './broker.js';
export type { AppliedAnswer, BrokerEvent, SettledRequest } from './broker.js';
export type { PendingRequest } from './pendingRequest.js';
export type { RespondResult, RespondErrorCode } from './respondResult.js';
export { REVOKE_PREFIX } from './recovery.js';
export { DEFAULT_CEILING, remoteModeChangeAllowed, withinCeiling } from './modeCeiling.js';
export { MODE_LABELS } from './modeMetadata.js';
