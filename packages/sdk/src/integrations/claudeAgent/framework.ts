import { requireFramework } from '../frameworkPeer.js';
import type { ResolvePackage } from '../frameworkPeer.js';

/** The framework this adapter is for, an optional peer of the SDK. */
export const CLAUDE_AGENT_SDK = '@anthropic-ai/claude-agent-sdk';

/**
 * Checks that the Claude Agent SDK is installed (docs/claude-agent.md, "Install"). The entry
 * `happy-session/claude-agent` calls it when it is imported, so a program without it learns so
 * from a typed error with the install line, not from a missing module later.
 *
 * @throws {SdkError} `integration.framework_missing`.
 */
export function requireClaudeAgentSdk(resolve?: ResolvePackage): void {
  requireFramework(CLAUDE_AGENT_SDK, 'happy-session/claude-agent', resolve);
}
