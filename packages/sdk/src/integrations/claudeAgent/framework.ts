import { createRequire } from 'node:module';
import { SdkError } from '../../errors.js';

/** The framework this adapter is for, an optional peer of the SDK. */
export const CLAUDE_AGENT_SDK = '@anthropic-ai/claude-agent-sdk';

/** Finds a package the way the program's own imports would; throws when it is not installed. */
export type ResolvePackage = (name: string) => void;

const resolveBesideTheSdk: ResolvePackage = (name) => {
  createRequire(import.meta.url).resolve(name);
};

/**
 * Checks that the Claude Agent SDK is installed (docs/claude-agent.md, "Install"). The entry
 * `happy-session/claude-agent` calls it when it is imported, so a program without it learns so
 * from a typed error with the install line, not from a missing module later.
 *
 * @throws {SdkError} `integration.framework_missing`.
 */
export function requireClaudeAgentSdk(resolve: ResolvePackage = resolveBesideTheSdk): void {
  try {
    resolve(CLAUDE_AGENT_SDK);
  } catch (cause) {
    throw new SdkError(
      'integration.framework_missing',
      `happy-session/claude-agent adapts the npm package ${CLAUDE_AGENT_SDK}, which is not installed.`,
      { hint: `npm install ${CLAUDE_AGENT_SDK}`, cause },
    );
  }
}
