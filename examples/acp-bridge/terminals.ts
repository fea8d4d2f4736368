// The ACP `terminal/*` methods, served by a sandboxed shell: each `terminal/create` becomes a Bash
// tool call of the current turn, gated by the session's permission gate, and its command runs in
// the sandbox of `happy-session/sandbox` (docs/sandbox.md).
// In your project, import from 'happy-session' and 'happy-session/sandbox' instead.
import * as acp from '@agentclientprotocol/sdk';
import type { ToolCall, Turn } from 'happy-session';
import { ShellCommandError } from 'happy-session/sandbox';
import type { SandboxedShell, ShellCommandResult } from 'happy-session/sandbox';

/** Output kept per terminal when the agent gives no `outputByteLimit`. */
const DEFAULT_OUTPUT_BYTES = 1024 * 1024;
/** Output written into the call's scope at its end, at most. */
const SHOWN_OUTPUT_CHARS = 8 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Terminal {
  readonly call: ToolCall;
  readonly kill: AbortController;
  readonly limit: number;
  output: string;
  truncated: boolean;
  exit: acp.TerminalExitStatus | undefined;
  readonly exited: Promise<acp.TerminalExitStatus>;
}

/**
 * The terminals of one bridge. `terminal/create` waits until the permission gate decided: on allow
 * the command starts in the sandbox and the agent gets its terminal id; on deny, cancel or a
 * sandbox that cannot run, the agent gets an error and nothing runs. The command's output is
 * kept for `terminal/output` (cut from the start to `outputByteLimit`), its exit status answers
 * `terminal/wait_for_exit`, `terminal/kill` ends it and everything it started, and
 * `terminal/release` does too and forgets it. The turn's stop ends every command of the turn.
 */
export class SandboxedTerminals {
  private readonly terminals = new Map<string, Terminal>();
  private next = 0;

  constructor(
    private readonly shell: SandboxedShell,
    private readonly currentTurn: () => Turn | undefined,
  ) {}

  async create(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    const turn = this.currentTurn();
    if (!turn || turn.ended) {
      throw acp.RequestError.invalidRequest(undefined, 'terminal/create outside a running prompt');
    }
    const command = commandLine(params);
    const call = turn.toolCall({
      toolName: 'Bash',
      title: `Run \`${command.replaceAll('`', "'")}\``,
      args: { command, ...(params.cwd ? { cwd: params.cwd } : {}) },
      kind: 'execute',
    });
    const terminalId = `term-${++this.next}`;
    const kill = new AbortController();
    let settleExit!: (status: acp.TerminalExitStatus) => void;
    const terminal: Terminal = {
      call,
      kill,
      limit: Math.max(1, params.outputByteLimit ?? DEFAULT_OUTPUT_BYTES),
      output: '',
      truncated: false,
      exit: undefined,
      exited: new Promise((resolve) => (settleExit = resolve)),
    };
    let started!: (ok: boolean, why?: string) => void;
    const starting = new Promise<{ ok: boolean; why?: string }>((resolve) => {
      started = (ok, why) => resolve({ ok, ...(why !== undefined ? { why } : {}) });
    });
    const run = call.run(async (args, context) => {
      if (!this.shell.available) {
        const why = this.shell.unavailable?.message ?? 'the sandbox is unavailable';
        started(false, why);
        throw new Error(why);
      }
      started(true);
      // The stream says how the command ran, whatever the app shows of the decision.
      call
        .scope()
        .service(
          `Runs sandboxed (ACP terminal ${terminalId}): writes only inside ${this.shell.workspaceRoot}.`,
        );
      const result = await this.shell.run(String(args.command), {
        ...(typeof args.cwd === 'string' ? { cwd: args.cwd } : {}),
        signal: AbortSignal.any([context.signal, kill.signal]),
        onOutput: (text) => append(terminal, text),
        callId: call.callId,
      });
      showOutput(call, result);
      if (result.aborted || result.exitCode !== 0) throw new ShellCommandError(result);
      return result;
    });
    void run.then(
      (outcome) => {
        if (outcome.status !== 'done' && outcome.status !== 'failed') {
          started(false, `the command was ${outcome.status}`);
        }
        const result =
          outcome.status === 'done'
            ? outcome.value
            : outcome.status === 'failed' && outcome.error instanceof ShellCommandError
              ? outcome.error.result
              : undefined;
        terminal.exit = exitStatusOf(result);
        settleExit(terminal.exit);
      },
      (error: unknown) => {
        started(false, error instanceof Error ? error.message : String(error));
        terminal.exit = { exitCode: null, signal: null };
        settleExit(terminal.exit);
      },
    );
    const start = await starting;
    if (!start.ok) throw acp.RequestError.internalError(undefined, `The command did not run: ${start.why}.`);
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  output(params: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const terminal = this.find(params.terminalId);
    return {
      output: terminal.output,
      truncated: terminal.truncated,
      ...(terminal.exit ? { exitStatus: terminal.exit } : {}),
    };
  }

  async waitForExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    return this.find(params.terminalId).exited;
  }

  kill(params: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.find(params.terminalId).kill.abort();
    return {};
  }

  release(params: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    this.find(params.terminalId).kill.abort();
    this.terminals.delete(params.terminalId);
    return {};
  }

  /** Ends every command still running (the bridge is stopping). */
  releaseAll(): void {
    for (const terminal of this.terminals.values()) terminal.kill.abort();
    this.terminals.clear();
  }

  private find(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw acp.RequestError.invalidParams(undefined, `No terminal ${terminalId}.`);
    return terminal;
  }
}

/**
 * The shell line for `command` and `args`: without args, `command` is taken as a command line
 * (agents send `npm test` as well as `npm` + `["test"]`); with them, every word is quoted. The
 * agent's `env` is exported first.
 */
function commandLine(params: acp.CreateTerminalRequest): string {
  const words =
    params.args && params.args.length > 0 ? [params.command, ...params.args].map(quote) : [params.command];
  const exports = (params.env ?? []).map((v) => {
    if (!ENV_NAME.test(v.name))
      throw acp.RequestError.invalidParams(undefined, `Bad variable name ${v.name}.`);
    return `export ${v.name}=${quote(v.value)}; `;
  });
  return exports.join('') + words.join(' ');
}

function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Adds output, keeping at most the terminal's limit in bytes, cut at a character from the start. */
function append(terminal: Terminal, text: string): void {
  terminal.output += text;
  const bytes = Buffer.from(terminal.output, 'utf8');
  if (bytes.length <= terminal.limit) return;
  let start = bytes.length - terminal.limit;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
  terminal.output = bytes.subarray(start).toString('utf8');
  terminal.truncated = true;
}

function exitStatusOf(result: ShellCommandResult | undefined): acp.TerminalExitStatus {
  if (!result) return { exitCode: null, signal: null };
  return { exitCode: result.exitCode, signal: result.signal ?? (result.aborted ? 'SIGKILL' : null) };
}

/** The output's tail, fenced, in the call's scope, so the person sees what the command printed. */
function showOutput(call: ToolCall, result: ShellCommandResult): void {
  const text = result.output.trimEnd();
  if (text === '' || call.ended) return;
  const tail = text.length > SHOWN_OUTPUT_CHARS ? `…${text.slice(-SHOWN_OUTPUT_CHARS)}` : text;
  const fence = tail.includes('```') ? '~~~~' : '```';
  try {
    call.scope().text(`${fence}\n${tail}\n${fence}`);
  } catch {
    // The turn ended meanwhile; the agent still gets the output.
  }
}
