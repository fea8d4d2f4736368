// An agent on OpenAI Agents JS, on a Happy session: each prompt from the app is one streamed run;
// the `run_command` tool asks the person first, and a run waiting for an answer is saved, so a
// restarted program resumes it (docs/integrations.md).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, Runner, RunState, tool } from '@openai/agents';
import type { ModelProvider } from '@openai/agents';
import { openAiAgentsBridge } from 'happy-session/openai-agents';
import type { OpenAiAgentsBridge } from 'happy-session/openai-agents';
import { commandExecutor } from 'happy-session/sandbox';
import type { AgentsInput } from 'happy-session/openai-agents';
import type { Session } from 'happy-session/node';
import { z } from 'zod';

export interface AgentOptions {
  /** Where the model comes from; default the framework's (OpenAI, with OPENAI_API_KEY). */
  readonly modelProvider?: ModelProvider;
  /** Where commands run. */
  readonly cwd: string;
  /** Where a run waiting for approvals is saved (and resumed from after a restart). */
  readonly statePath: string;
}

/**
 * The agent, whose `run_command` the person approves each time. It runs with `commandExecutor()`:
 * a stop kills it with everything it started
 * (docs/sandbox.md, "Running a call's command"); `commandExecutor({ shell })` would run it in the
 * sandbox instead.
 */
export function makeAgent(cwd: string, bridge: OpenAiAgentsBridge): Agent {
  // The bridge writes the tool's result into the call: the output is not streamed there twice.
  const execute = commandExecutor({ unsandboxed: true, cwd, streamOutput: false });
  return new Agent({
    name: 'Helper',
    instructions: 'You are a helpful agent. Use run_command to look at the machine.',
    tools: [
      tool({
        name: 'run_command',
        description: 'Runs a shell command in the working directory and returns its output.',
        parameters: z.object({ command: z.string() }),
        needsApproval: true,
        execute: async ({ command }, _context, details) => {
          const callId = details?.toolCall?.callId ?? '';
          const signal = details?.signal;
          const run = await bridge.runContext(callId, signal ? { signal } : {});
          return (await execute({ command }, run)).output.trimEnd();
        },
      }),
    ],
  });
}

/** Resumes a saved run, if there is one, then answers prompts until `stop` or the session closes. */
export async function runAgent(session: Session, options: AgentOptions): Promise<void> {
  const runner = new Runner(options.modelProvider ? { modelProvider: options.modelProvider } : {});
  const bridge = openAiAgentsBridge(session, {
    tools: { run_command: { kind: 'execute', title: (input) => `Run \`${String(input.command)}\`` } },
  });
  const agent = makeAgent(options.cwd, bridge);
  const start = (input: AgentsInput, { signal }: { signal: AbortSignal }) =>
    runner.run(agent, input, { stream: true, signal });
  const turnOptions = {
    onInterrupted: (state: string) => writeFileSync(options.statePath, state, { mode: 0o600 }),
  };
  // A run is kept only when the program went down while its calls waited (`pending`); a run that
  // ended, or that the person stopped, is not resumed.
  const keepIfPending = (result: { pending: boolean }) => {
    if (!result.pending) rmSync(options.statePath, { force: true });
  };

  if (existsSync(options.statePath)) {
    const state = await RunState.fromString(agent, readFileSync(options.statePath, 'utf8'));
    keepIfPending(await bridge.run(start, state, turnOptions));
  }
  for await (const prompt of session.prompts()) {
    if (prompt.text.trim() === 'stop') {
      const turn = session.turn();
      turn.text('Stopping. Bye!');
      turn.end();
      break;
    }
    keepIfPending(await bridge.run(start, prompt.text, turnOptions));
  }
  await session.writer.flush();
}
