// Runs any Agent Client Protocol agent behind a Happy session: the user's prompts go to the agent,
// what the agent streams back becomes v2 turns, and its permission requests wait for the user.
// In your project, import from 'happy-session' and 'happy-session/node' instead of ../../src.
import { resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { SdkError, silentLogger } from 'happy-session';
import type { Logger, Turn, TurnEndStatus } from 'happy-session';
import type { AgentExit } from './agentProcess.js';
import { spawnAgent } from './agentProcess.js';
import { TurnTranslator } from './turnTranslator.js';
import { SandboxedTerminals } from './terminals.js';
import type { SandboxedShell } from 'happy-session/sandbox';
import { answerElicitation } from './elicitation.js';

/** The bridge's own failures, carried by the SDK's error class. */
export type AcpErrorCode = 'acp.agent_not_ready' | 'acp.agent_refused';

/** What the bridge needs of a session; `connect()`'s `Session` has it. */
export interface AcpBridgeSession {
  /** The user's prompts, each once, until the session closes. */
  prompts(): AsyncIterator<{ readonly text: string }>;
  /** Starts a v2 turn. Tool calls are gated by the session's permission gate. */
  turn(): Turn;
}

/** Options of {@link runAcpBridge}. */
export interface AcpBridgeOptions {
  readonly session: AcpBridgeSession;
  /** The agent's command, e.g. `npx`, and its arguments. */
  readonly command: string;
  readonly args?: readonly string[];
  /** The agent's working directory (and its ACP session's `cwd`); default this process's. */
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where the agent's stderr goes; default `inherit`. */
  readonly stderr?: 'inherit' | 'ignore';
  /**
   * Offers the agent ACP terminals (`terminal/create`, `output`, `wait_for_exit`, `kill`,
   * `release`) whose commands run in this sandboxed shell, each as a Bash call of the current
   * turn gated by the session's permission gate (README, "Terminals"). Without it the bridge
   * offers no terminal.
   */
  readonly sandbox?: SandboxedShell;
  /** Stops the bridge: the current prompt is cancelled and the agent stopped. */
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
}

/** Why {@link runAcpBridge} returned. */
export type AcpBridgeStop = 'signal' | 'session-closed' | 'agent-exited';

/** What {@link runAcpBridge} did. */
export interface AcpBridgeResult {
  readonly stoppedBy: AcpBridgeStop;
  /** Turns written, one per prompt. */
  readonly turns: number;
  readonly agentExit: AgentExit;
}

/**
 * Spawns the agent, initializes ACP and opens one ACP session, then sends each of the session's
 * prompts as one `session/prompt` and writes its answer as one v2 turn. The turn's status comes
 * from the ACP stop reason (`end_turn` → completed, `cancelled` → cancelled, anything else or an
 * error → failed, with a `service` message saying why). The user's `abort` RPC sends
 * `session/cancel`, and pending permission requests are answered `cancelled`.
 *
 * Returns when `signal` aborts, the session's prompts end, or the agent exits. Rejects only when
 * the agent cannot be started or refuses `initialize` / `session/new`.
 */
export async function runAcpBridge(options: AcpBridgeOptions): Promise<AcpBridgeResult> {
  const logger = options.logger ?? silentLogger;
  const cwd = resolve(options.cwd ?? process.cwd());
  const agent = spawnAgent(options.command, options.args ?? [], {
    cwd,
    ...(options.env ? { env: options.env } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
  });
  let sessionId: string | undefined;
  let current: TurnTranslator | undefined;
  let currentTurn: Turn | undefined;
  const terminals = options.sandbox ? new SandboxedTerminals(options.sandbox, () => currentTurn) : undefined;

  const client = acp
    .client({ name: 'happy-session-acp-bridge' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.sessionId === sessionId) current?.update(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) =>
      params.sessionId === sessionId && current
        ? current.requestPermission(params, signal)
        : { outcome: { outcome: 'cancelled' as const } },
    )
    // The agent's questions (elicitation, form mode) go to `turn.ask()` (docs/questions.md).
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => {
      const inSession = 'sessionId' in params && params.sessionId === sessionId;
      if (!inSession || !current || !currentTurn) return { action: 'cancel' as const };
      current.flush();
      return answerElicitation(currentTurn, params, signal);
    });
  const connection = (terminals ? withTerminals(client, terminals, () => sessionId) : client).connect(
    agent.stream,
  );
  // Closing with an error (the agent died) is reported by the request that was waiting, not here.
  connection.closed.catch(() => undefined);

  const prompts = options.session.prompts();
  let turns = 0;
  let stoppedBy: AcpBridgeStop = 'session-closed';
  let stopping: Promise<AgentExit> | undefined;
  const stopAll = (): Promise<AgentExit> =>
    (stopping ??= (async () => {
      void prompts.return?.();
      terminals?.releaseAll();
      connection.close();
      await connection.closed.catch(() => undefined);
      return agent.stop();
    })());
  try {
    const starting = openAcpSession(connection, cwd, agent.exited, terminals !== undefined);
    starting.catch(() => undefined);
    const started = await Promise.race([starting, aborted(options.signal)]);
    if (started === null) return { stoppedBy: 'signal', turns, agentExit: await stopAll() };
    sessionId = started;
    const stop = stopSignal(options.signal, agent.exited);
    for (;;) {
      const next = await Promise.race([prompts.next(), stop.promise]);
      if ('stop' in next) {
        stoppedBy = next.stop;
        break;
      }
      if (next.done) break;
      const turn = options.session.turn();
      turns += 1;
      current = new TurnTranslator(turn, logger);
      currentTurn = turn;
      // Stopping the bridge mid-prompt cancels the prompt like the user's abort does.
      const abortTurn = () => turn.abort(new Error('the bridge is stopping'));
      options.signal?.addEventListener('abort', abortTurn, { once: true });
      if (options.signal?.aborted) abortTurn();
      const status = await runPrompt(connection.agent, started, next.value.text, turn);
      options.signal?.removeEventListener('abort', abortTurn);
      current.close();
      current = undefined;
      currentTurn = undefined;
      turn.end(status);
    }
    return { stoppedBy, turns, agentExit: await stopAll() };
  } finally {
    await stopAll();
  }
}

/**
 * `initialize` and `session/new`, with an error that says what went wrong: the agent died
 * (`acp.agent_not_ready`, with its exit) or it answered with an error (`acp.agent_refused`).
 */
async function openAcpSession(
  connection: acp.ClientConnection,
  cwd: string,
  exited: Promise<AgentExit>,
  terminal: boolean,
): Promise<string> {
  try {
    return await startAcpSession(connection.agent, cwd, terminal);
  } catch (error) {
    const hint = 'run the agent command by itself to see why; its stderr is shown unless stderr: "ignore"';
    if (connection.signal.aborted) {
      // The agent's stdout ended: it is exiting, and its exit says why.
      const exit = await exited;
      const how = exit.error ?? `code ${exit.code}, signal ${exit.signal}`;
      throw new SdkError<AcpErrorCode>(
        'acp.agent_not_ready',
        `The ACP agent exited before it was ready (${how}).`,
        {
          hint,
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new SdkError<AcpErrorCode>(
      'acp.agent_refused',
      `The ACP agent refused to start a session: ${message}`,
      {
        hint,
        cause: error,
      },
    );
  }
}

async function startAcpSession(agent: acp.ClientContext, cwd: string, terminal: boolean): Promise<string> {
  await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    // The bridge serves no files: the agent works on its own machine. Terminals only with a sandbox.
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal,
      elicitation: { form: {} },
    },
    clientInfo: { name: 'happy-session-acp-bridge', version: '0.1.0' },
  });
  const created = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return created.sessionId;
}

/**
 * One `session/prompt`, cancelled with `session/cancel` when the turn's signal aborts (the user's
 * `abort` RPC). The listener goes before the turn ends, since ending aborts the signal too.
 */
async function runPrompt(
  agent: acp.ClientContext,
  sessionId: string,
  text: string,
  turn: Turn,
): Promise<TurnEndStatus> {
  const cancel = () =>
    void agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => undefined);
  turn.signal.addEventListener('abort', cancel, { once: true });
  try {
    const response = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });
    if (response.stopReason === 'end_turn') return 'completed';
    if (response.stopReason === 'cancelled') return 'cancelled';
    turn.service(`The agent stopped: ${response.stopReason}.`);
    return 'failed';
  } catch (error) {
    turn.service(`The agent failed: ${error instanceof Error ? error.message : String(error)}`);
    return 'failed';
  } finally {
    turn.signal.removeEventListener('abort', cancel);
  }
}

/** The client with the `terminal/*` handlers, each for the bridge's ACP session only. */
function withTerminals<C extends ReturnType<typeof acp.client>>(
  client: C,
  terminals: SandboxedTerminals,
  sessionId: () => string | undefined,
): C {
  const mine = (params: { sessionId: string }): void => {
    if (params.sessionId !== sessionId()) throw acp.RequestError.invalidParams(undefined, 'unknown session');
  };
  return client
    .onRequest(acp.methods.client.terminal.create, ({ params }) => (mine(params), terminals.create(params)))
    .onRequest(acp.methods.client.terminal.output, ({ params }) => (mine(params), terminals.output(params)))
    .onRequest(
      acp.methods.client.terminal.waitForExit,
      ({ params }) => (mine(params), terminals.waitForExit(params)),
    )
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => (mine(params), terminals.kill(params)))
    .onRequest(
      acp.methods.client.terminal.release,
      ({ params }) => (mine(params), terminals.release(params)),
    ) as C;
}

/** Resolves `{ stop }` when the bridge must stop waiting for prompts. */
function stopSignal(
  signal: AbortSignal | undefined,
  exited: Promise<AgentExit>,
): { promise: Promise<{ stop: AcpBridgeStop }> } {
  const stopped = new Promise<{ stop: AcpBridgeStop }>((resolve) => {
    if (signal?.aborted) resolve({ stop: 'signal' });
    signal?.addEventListener('abort', () => resolve({ stop: 'signal' }), { once: true });
    void exited.then(() => resolve({ stop: 'agent-exited' }));
  });
  return { promise: stopped };
}

/** Resolves `null` when `signal` aborts; never, without one. */
function aborted(signal: AbortSignal | undefined): Promise<null> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve(null);
    signal?.addEventListener('abort', () => resolve(null), { once: true });
  });
}
