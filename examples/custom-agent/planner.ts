// The "planner" of an agent with no LLM: a few rules that turn a prompt into one action.

/** What the agent does for one prompt. */
export type Action =
  | { readonly kind: 'bash'; readonly command: string }
  | { readonly kind: 'bash-each'; readonly commands: readonly string[] }
  | { readonly kind: 'read'; readonly path: string }
  | { readonly kind: 'clean'; readonly path: string }
  | { readonly kind: 'answer'; readonly text: string }
  | { readonly kind: 'stop' };

/**
 * `run <command>`, `run each <command>; <command>; …` (the calls run side by side, each asking
 * on its own), `read <file>`, `clean <dir>` (asks first, then deletes it), `stop`; anything else
 * gets a text answer.
 */
export function plan(prompt: string): Action {
  const text = prompt.trim();
  if (text === 'stop') return { kind: 'stop' };
  const each = /^run each\s+([^]+)$/.exec(text);
  if (each) {
    const commands = each[1]!
      .split(';')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    if (commands.length > 0) return { kind: 'bash-each', commands };
  }
  const run = /^run\s+([^]+)$/.exec(text);
  if (run) return { kind: 'bash', command: run[1]! };
  const clean = /^clean\s+(\S+)$/.exec(text);
  if (clean) return { kind: 'clean', path: clean[1]! };
  const read = /^read\s+(\S+)$/.exec(text);
  if (read) return { kind: 'read', path: read[1]! };
  return {
    kind: 'answer',
    text: `I know five things: \`run <command>\`, \`run each <command>; <command>\`, \`read <file>\`, \`clean <dir>\` and \`stop\`. You said: "${text}".`,
  };
}
