/**
 * The environment an outer `happy-session run` gives its command, so that a `happy-session run`
 * started anywhere below it nests its step under the outer one's (docs/cli.md, "Nesting").
 */
export const RUN_ENV = {
  /** The local socket the outer run serves. */
  socket: 'HAPPY_SESSION_RUN_SOCKET',
  /** The step a nested run's step goes under: the id of the innermost run around it. */
  parent: 'HAPPY_SESSION_RUN_PARENT',
  /** A random token the outer run checks, so only its own descendants report to it. */
  token: 'HAPPY_SESSION_RUN_TOKEN',
} as const;

/** Where a nested run reports to, read from its environment. */
export interface OuterRun {
  readonly socket: string;
  readonly parent: string;
  readonly token: string;
}

/** The outer run this process is inside of, if its environment names one completely. */
export function outerRunOf(env: Readonly<Record<string, string | undefined>>): OuterRun | undefined {
  const socket = env[RUN_ENV.socket];
  const parent = env[RUN_ENV.parent];
  const token = env[RUN_ENV.token];
  return socket && parent && token ? { socket, parent, token } : undefined;
}

/** The variables a run's command gets: its step becomes the parent of any run inside it. */
export function nestingEnv(outer: OuterRun): Record<string, string> {
  return { [RUN_ENV.socket]: outer.socket, [RUN_ENV.parent]: outer.parent, [RUN_ENV.token]: outer.token };
}
