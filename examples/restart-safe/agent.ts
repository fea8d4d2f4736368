import { appendFileSync } from 'node:fs';
import type { Session } from 'happy-session/node';
import type { ToolCall } from 'happy-session';

/** What the agent does for a prompt: a stand-in for a deploy, recorded in `ledger` so a test can count runs. */
export function deploy(ledger: string, target: string): string {
  appendFileSync(ledger, `deployed ${target} in ${process.pid}\n`);
  return `deployed ${target}`;
}

/**
 * A restart-safe agent (docs/recovery.md): it first takes up what a dead process left in the
 * session (a deploy waiting for approval runs on the allow the person gave meanwhile, or asks
 * again), then serves prompts. Every prompt is taken once, by one process.
 */
export async function runRestartSafeAgent(
  session: Session,
  options: { readonly ledger: string; readonly signal?: AbortSignal },
): Promise<void> {
  const run = (call: ToolCall) =>
    call.run(
      (args) => deploy(options.ledger, String(args.target)),
      options.signal ? { signal: options.signal } : {},
    );
  for (const interrupted of session.interrupted.calls) {
    if (interrupted.toolName !== 'deploy' || interrupted.state !== 'asking') continue;
    const turn = session.turn();
    turn.text(`Picking up the deploy of ${String(interrupted.args.target)} the last run left waiting.`);
    const result = await run(session.resume(interrupted, turn));
    turn.text(`deploy: ${result.status}`);
    turn.end();
  }
  for await (const prompt of session.prompts(options.signal ? { signal: options.signal } : {})) {
    const turn = session.turn();
    const target = prompt.text.trim() || 'staging';
    const call = turn.toolCall({ toolName: 'deploy', title: `Deploy ${target}`, args: { target } });
    const result = await run(call);
    turn.text(`deploy: ${result.status}`);
    turn.end();
  }
}
