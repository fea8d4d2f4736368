// A Claude Code agent in a Happy session: each prompt the user sends from the app is one
// `query()` of the Claude Agent SDK, mirrored into the session, its tool approvals answered by
// the session's permission gate. The conversation goes on from prompt to prompt (`resume`).
import { query } from '@anthropic-ai/claude-agent-sdk';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { happyCanUseTool, happyClaude } from 'happy-session/claude-agent';
import type { HappyClaudeResult } from 'happy-session/claude-agent';
import type { Session } from 'happy-session/node';

/** Options of {@link runClaudeAgent}. */
export interface ClaudeAgentOptions {
  /** The folder Claude Code works in. */
  readonly cwd: string;
  /**
   * More options for every `query()`: the binary (`pathToClaudeCodeExecutable`), the environment
   * (`env`: it replaces the child's whole environment), the model, …
   */
  readonly claude?: Options;
  /** Stops the agent between prompts (and the current prompt, as the app's stop does). */
  readonly signal?: AbortSignal;
  /** Called after each prompt. */
  readonly onTurn?: (result: HappyClaudeResult) => void;
}

/** Answers the session's prompts with Claude Code until the session closes or `signal` aborts. */
export async function runClaudeAgent(session: Session, options: ClaudeAgentOptions): Promise<void> {
  const canUseTool = happyCanUseTool(session);
  let resume: string | undefined;
  for await (const prompt of session.prompts({ ...(options.signal ? { signal: options.signal } : {}) })) {
    const run = query({
      prompt: prompt.text,
      options: {
        cwd: options.cwd,
        // No settings from the machine: the session's gate is the one place that decides.
        settingSources: [],
        ...options.claude,
        ...(resume ? { resume } : {}),
        canUseTool,
      },
    });
    const stopOnSignal = () => void run.interrupt().catch(() => run.close());
    options.signal?.addEventListener('abort', stopOnSignal, { once: true });
    const result = await happyClaude(session, run);
    options.signal?.removeEventListener('abort', stopOnSignal);
    resume = result.sessionId ?? resume;
    options.onTurn?.(result);
  }
}

/**
 * The environment Claude Code needs to talk to a model at `baseUrl` with `apiKey`, and nothing of
 * this machine's own configuration: its config folder and home are `home`, and it sends no
 * telemetry and does not update itself.
 */
export function isolatedEnv(
  home: string,
  model: { baseUrl?: string; apiKey: string },
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: `${home}/.claude`,
    ANTHROPIC_API_KEY: model.apiKey,
    ...(model.baseUrl ? { ANTHROPIC_BASE_URL: model.baseUrl } : {}),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}
