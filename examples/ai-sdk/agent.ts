// An agent on the Vercel AI SDK, on a Happy session: each prompt from the app is one turn of
// `streamText`; the `run_command` tool asks the person first (docs/integrations.md).
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import { stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel, ModelMessage } from 'ai';
import { aiSdkBridge } from 'happy-session/ai';
import type { Session } from 'happy-session/node';
import { z } from 'zod';

const sh = promisify(exec);

export interface AgentOptions {
  readonly model: LanguageModel;
  /** Where commands run. */
  readonly cwd: string;
}

/** The tools: a shell command the person approves, each time, in the app. */
export function tools(cwd: string) {
  return {
    run_command: tool({
      description: 'Runs a shell command in the working directory and returns its output.',
      inputSchema: z.object({ command: z.string() }),
      needsApproval: true,
      execute: async ({ command }, { abortSignal }) => {
        const { stdout, stderr } = await sh(command, { cwd, signal: abortSignal });
        return (stdout + stderr).trimEnd();
      },
    }),
  };
}

/** Answers the person's prompts until one says `stop` or the session closes. */
export async function runAgent(session: Session, options: AgentOptions): Promise<void> {
  const bridge = aiSdkBridge(session, {
    tools: { run_command: { kind: 'execute', title: (input) => `Run \`${String(input.command)}\`` } },
  });
  const toolSet = tools(options.cwd);
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
