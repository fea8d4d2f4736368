/**
 * The Claude Agent SDK adapter (`happy-session/claude-agent`, Node only; docs/claude-agent.md): a
 * `query()` mirrored into the session by `happyClaude()`, and its `canUseTool` answered by the
 * session's permission gate through `happyCanUseTool()`. The SDK, `@anthropic-ai/claude-agent-sdk`,
 * is an optional peer: importing this entry without it throws `integration.framework_missing`.
 */
import { requireClaudeAgentSdk } from './framework.js';

requireClaudeAgentSdk();

export { happyClaude } from './mirror.js';
export type { ClaudeMirrorSession, HappyClaudeOptions, HappyClaudeResult } from './mirror.js';
export { happyCanUseTool } from './canUseTool.js';
export type {
  ClaudeAgentSession,
  ClaudeCanUseTool,
  ClaudePermissionContext,
  ClaudePermissionResult,
  HappyCanUseToolOptions,
} from './canUseTool.js';
export type { ClaudeMessage, ClaudeQuery } from './messages.js';
