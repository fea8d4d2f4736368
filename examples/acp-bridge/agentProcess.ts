// An ACP agent as a child process: JSON-RPC over its stdin and stdout, one message a line.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

/** How the agent process ended. */
export interface AgentExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (command not found, ...). */
  readonly error?: string;
}

/** A running agent process. */
export interface AgentProcess {
  /** The ACP stream over the process's stdio. */
  readonly stream: acp.Stream;
  /** Settles (never rejects) when the process has exited or failed to start. */
  readonly exited: Promise<AgentExit>;
  /** Stops the process: closes its stdin, then sends SIGTERM. */
  stop(): Promise<AgentExit>;
}

/** Options of {@link spawnAgent}. */
export interface SpawnAgentOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where the agent's own log output goes; default `inherit` (this process's stderr). */
  readonly stderr?: 'inherit' | 'ignore';
}

/** Starts `command args…` with piped stdin/stdout and wraps them as an ACP stream. */
export function spawnAgent(
  command: string,
  args: readonly string[],
  options: SpawnAgentOptions = {},
): AgentProcess {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
    // Its own process group: Ctrl-C in a terminal reaches the bridge, which cancels the prompt and
    // then stops the agent, instead of killing the agent mid-turn. The agent still ends when the
    // bridge does, since its stdin closes.
    detached: true,
  });
  const exited = new Promise<AgentExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error: error.message }));
  });
  // A write to an agent that has exited fails with EPIPE; the exit is reported through `exited`.
  child.stdin.on('error', () => undefined);
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  return {
    stream,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        child.kill('SIGTERM');
      }
      return exited;
    },
  };
}
