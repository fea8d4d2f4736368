import type { Turn } from '../../stream/turn.js';
import type { SessionWriter } from '../../stream/sessionWriter.js';

/**
 * The demo's agent: one turn that searches, delegates to a subagent that runs its own tool call
 * (two levels of nesting), runs a build step, and reports. No LLM: the point is the stream.
 */
export async function runExampleAgent(writer: SessionWriter, prompt: string): Promise<Turn> {
  const turn = writer.turn();
  turn.thinking(`The user asked: "${prompt}". Search first, then delegate the auth review.`);
  turn.text("I'll look for TODOs, then have a subagent review the auth code.");

  const grep = turn.toolCall({
    toolName: 'grep',
    title: 'Search for `TODO`',
    description: 'Searching for `TODO` in the project',
    args: { pattern: 'TODO' },
    kind: 'read',
  });
  grep.end();

  const task = turn.toolCall({
    toolName: 'task',
    title: 'Review auth code',
    description: 'A subagent reads src/auth',
    args: { prompt: 'Review src/auth for unsafe token handling' },
    agentTitle: 'Auth review',
  });
  const sub = task.scope();
  sub.text('Reading src/auth/...');
  const read = sub.toolCall({
    toolName: 'read',
    title: 'Read `src/auth/token.ts`',
    args: { path: 'src/auth/token.ts' },
    kind: 'read',
  });
  read.end();
  sub.text('Token comparison is not constant-time.');
  task.end();

  await turn.step('Build', async (build) => {
    await build.step('Compile', () => undefined);
    await build.step('Unit tests', () => undefined);
  });

  turn.text('Found 3 TODOs; the auth review flagged one issue.');
  turn.end('completed');
  await writer.flush();
  return turn;
}
