// A risky step asked about first: before deleting a directory the agent asks the person, with a
// question, what to do; only "Delete" goes on to the (gated) `rm -rf`.
import type { Turn } from 'happy-session';

/** What the agent needs to run the command once the person said to delete. */
export type RunCommand = (turn: Turn, command: string) => Promise<unknown>;

/** Single quotes for the shell: the path is one word whatever it holds. */
function quoted(path: string): string {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

/**
 * Asks whether to delete `path` (docs/questions.md); on "Delete", runs `rm -rf` through the
 * permission gate like any other command; on "Keep it", a dismissal, a stop or no answer, leaves
 * it as it is and says so.
 */
export async function clean(turn: Turn, path: string, run: RunCommand): Promise<void> {
  const answer = await turn.ask(
    [
      {
        id: 'delete',
        header: 'Delete',
        question: `Delete ${path} and everything in it?`,
        options: [{ label: 'Delete', description: 'rm -rf: it cannot be undone' }, { label: 'Keep it' }],
      },
    ],
    { title: `Before cleaning ${path}` },
  );
  if (answer.status === 'answered' && answer.answers.delete?.options[0] === 'Delete') {
    await run(turn, `rm -rf -- ${quoted(path)}`);
    return;
  }
  if (!turn.ended) turn.text(`Left \`${path}\` as it is.`);
}
