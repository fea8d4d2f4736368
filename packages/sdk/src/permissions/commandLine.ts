/**
 * The command line another tool than Bash runs (`CodexBash`, an MCP shell, an ACP `execute` call),
 * as bash text, so that deny and ask rules about Bash judge it too (docs/permissions-policy.md,
 * "Deny rules see the real command"): its `command` argument as given, or an argv array quoted word
 * by word (`['bash', '-lc', 'rm x']` is `'bash' '-lc' 'rm x'`, the same words to bash).
 * `undefined` when the call has no `command`; `null` when it has one that is neither (it cannot be
 * read, so a rule about Bash cannot be checked against it).
 */
export function commandLineOf(args: unknown): string | null | undefined {
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, 'command')) return undefined;
  const command = (args as Record<string, unknown>).command;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.length > 0 && command.every((w) => typeof w === 'string')) {
    return command.map((w: string) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ');
  }
  return null;
}
