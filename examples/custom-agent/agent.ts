// A minimal agent loop: each prompt from the app is one turn; tool calls go through the
// permission gate.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { splitText } from 'happy-session';
import type { RunResult, ToolCall, Turn } from 'happy-session';
import type { GateSettings, Session } from 'happy-session/node';
import { commandExecutor } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { clean } from './cleanStep.js';
import { plan } from './planner.js';
import { PlanKeeper } from './planKeeper.js';
import type { Action } from './planner.js';

/** Reads run without asking; everything else (Bash here) waits for the user's answer in the app. */
export const permissions: GateSettings = { rules: { allow: ['Read'] } };

/**
 * With a sandboxed shell: Bash calls that run in the sandbox run without asking too (the gate's
 * `sandbox` option). Where the sandbox is unavailable, `shell.policy` says so and every Bash call
 * asks, as with {@link permissions} (docs/sandbox.md).
 */
export function sandboxedPermissions(shell: SandboxedShell): GateSettings {
  return { ...permissions, workspaceRoot: shell.workspaceRoot, sandbox: shell.policy };
}

export interface AgentOptions {
  /** Where commands run and files are read from. */
  readonly cwd: string;
  /**
   * Runs Bash calls confined (`happy-session/sandbox`); open the session with
   * {@link sandboxedPermissions}. Unavailable or left out, commands run with `child_process`
   * once the user approved them.
   */
  readonly shell?: SandboxedShell;
}

/**
 * Answers the user's prompts, one turn each, until one says `stop` or the session closes. Open
 * the session with `connect({ permissions })` so that reads are allowed by rule.
 */
export async function runAgent(session: Session, options: AgentOptions): Promise<void> {
  for await (const prompt of session.prompts()) {
    const action = plan(prompt.text);
    const turn = session.turn();
    if (action.kind === 'stop') {
      turn.text('Stopping. Bye!');
      turn.end();
      break;
    }
    await act(turn, action, { ...options, ready: () => session.writer.ready() });
    // A turn the user stopped (the app's stop button) ends `cancelled`; any other `completed`: a
    // denial, today's app's "No" included, is an answer and the turn goes on (docs/permissions.md).
    turn.end();
  }
  await session.writer.flush();
}

async function act(
  turn: Turn,
  action: Exclude<Action, { kind: 'stop' }>,
  options: AgentOptions & { readonly ready: () => Promise<void> },
): Promise<void> {
  const { cwd } = options;
  const shell = options.shell?.available ? options.shell : undefined;
  switch (action.kind) {
    case 'answer':
      turn.text(action.text);
      return;
    case 'bash':
    case 'bash-each': {
      // The plan: one step per command, ticked off as each call ends.
      const commands = action.kind === 'bash' ? [action.command] : action.commands;
      const steps = new PlanKeeper(
        turn,
        commands.map((command) => `Run \`${command}\``),
      );
      // Side by side: each call waits for its own answer ("Allow all" in the viewer answers them).
      await Promise.all(
        commands.map(async (command, i) => {
          steps.start(i);
          steps.end(i, (await bash(turn, command, cwd, shell)).status);
        }),
      );
      steps.flush();
      return;
    }
    case 'read': {
      const steps = new PlanKeeper(turn, [`Read \`${action.path}\``]);
      steps.start(0);
      steps.end(0, (await read(turn, action.path, cwd, options.ready)).status);
      steps.flush();
      return;
    }
    case 'clean':
      // A risky step: the person is asked first (a question), then the gate asks for the command.
      await clean(turn, action.path, (t, command) => bash(t, command, cwd, shell));
      return;
  }
}

/**
 * A Bash call. With a sandboxed shell it runs confined, unasked (the sandbox executor writes its
 * output and what the sandbox blocked into the call); without one, the gate asks the user and
 * the command runs only if they allow it.
 */
async function bash(
  turn: Turn,
  command: string,
  cwd: string,
  shell: SandboxedShell | undefined,
): Promise<RunResult<string>> {
  const call = turn.toolCall({
    toolName: 'Bash',
    title: `Run \`${command}\``,
    args: { command },
    kind: 'execute',
  });
  // The request follows the turn's stop; the executor gets the approved arguments (the user may
  // have edited them), streams the output into the call, and kills the command with everything it
  // started when the user stops the turn.
  const execute = commandExecutor(shell ? { shell } : { unsandboxed: true, cwd });
  const result = await call.run(async (args, context) => (await execute(args, context)).output);
  // Written even if SIGINT or SIGTERM stopped the turn meanwhile: it is then not appended, and
  // nothing throws (docs/transport.md, "Graceful shutdown").
  turn.text(summary(call, result));
  return result;
}

/** A Read call: the `Read` allow rule lets it run without asking. */
async function read(
  turn: Turn,
  path: string,
  cwd: string,
  ready: () => Promise<void>,
): Promise<RunResult<string>> {
  const call = turn.toolCall({
    toolName: 'Read',
    title: `Read \`${path}\``,
    args: { file_path: path },
    kind: 'read',
  });
  const result = await call.run(async (args) => {
    const text = await readFile(resolve(cwd, String(args.file_path)), 'utf8');
    // One message holds at most MAX_RECORD_BYTES: a large file goes out in parts, each once the
    // outbox has room (docs/transport.md, "Backpressure").
    for (const part of splitText(codeBlock(text))) {
      await ready();
      call.scope().text(part);
    }
    return text;
  });
  turn.text(summary(call, result));
  return result;
}

function codeBlock(output: string): string {
  return '```\n' + output.trimEnd() + '\n```';
}

function summary(call: ToolCall, result: RunResult<string>): string {
  switch (result.status) {
    case 'done':
      return `${call.title}: done.`;
    case 'failed':
      return `${call.title} failed: ${result.error instanceof Error ? result.error.message : String(result.error)}`;
    case 'denied':
      return `${call.title}: not allowed, so not run.`;
    case 'cancelled':
      return `${call.title}: cancelled.`;
  }
}
