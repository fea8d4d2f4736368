// An agent on the Vercel AI SDK, on a Happy session: each prompt from the app is one turn of
// `streamText`; the `run_command` tool asks the person first (docs/integrations.md).
import { stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel, ModelMessage } from 'ai';
import { aiSdkBridge } from 'happy-session/ai';
import type { AiSdkBridge } from 'happy-session/ai';
import { commandExecutor } from 'happy-session/sandbox';
import type { Session } from 'happy-session/node';
import { z } from 'zod';

export interface AgentOptions {
  readonly model: LanguageModel;
  /** Where commands run. */
  readonly cwd: string;
}

/**
 * The tools: a shell command the person approves, each time, in the app. It runs with
 * `commandExecutor()`: a stop kills it with everything it
 * started (docs/sandbox.md, "Running a call's command"); `commandExecutor({ shell })` would run it
 * in the sandbox instead.
 */
export function tools(cwd: string, bridge: AiSdkBridge) {
  // The bridge writes the tool's result into the call: the output is not streamed there twice.
  const execute = commandExecutor({ unsandboxed: true, cwd, streamOutput: false });
  return {
    run_command: tool({
      description: 'Runs a shell command in the working directory and returns its output.',
      inputSchema: z.object({ command: z.string() }),
      needsApproval: true,
      execute: async ({ command }, { toolCallId, abortSignal }) => {
        const result = await execute(
          { command },
          await bridge.runContext(toolCallId, { signal: abortSignal }),
        );
        return result.output.trimEnd();
      },
    }),
  };
}

/** Answers the person's prompts until one says `stop` or the session closes. */
export async function runAgent(session: Session, options: AgentOptions): Promise<void> {
  const bridge = aiSdkBridge(session, {
    tools: { run_command: { kind: 'execute', title: (input) => `Run \`${String(input.command)}\`` } },
  });
  const toolSet = tools(options.cwd, bridge);
  let messages: ModelMessage[] = [];
  for await (const prompt of session.prompts()) {
    if (prompt.text.trim() === 'stop') {
      const turn = session.turn();
      turn.text('Stopping. Bye!');
      turn.end();
      break;
    }
    const result = await bridge.run(
      (call) =>
        streamText({
          model: options.model,
          system: 'You are a helpful agent. Use run_command to look at the machine.',
          tools: toolSet,
          stopWhen: stepCountIs(10),
          ...call,
        }),
      { messages: [...messages, { role: 'user', content: prompt.text }] },
    );
    messages = result.messages;
  }
  await session.writer.flush();
}
