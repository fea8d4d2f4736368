import { resolve } from 'node:path';
import { SdkError } from '../errors.js';
import type { RunContext } from '../stream/builders.js';
import { OutputSink } from './outputSink.js';
import { runProcess, type OutputStream } from './processRun.js';
import {
  commandOf,
  ShellCommandError,
  type SandboxedShell,
  type ShellCommandResult,
  type ShellExecutor,
} from './sandboxedShell.js';

/** Options of {@link commandExecutor} (docs/sandbox.md, "Running a call's command"). */
export type CommandExecutorOptions = {
  /** Deadline of each command: past it the whole process group is killed and the call fails. */
  readonly timeoutMs?: number;
} & (
  | {
      /** The sandboxed shell the commands run in (its own options say how output is streamed). */
      readonly shell: SandboxedShell;
      readonly unsandboxed?: undefined;
    }
  | {
      /** The host's choice to run the commands outside any sandbox, in `cwd`. */
      readonly unsandboxed: true;
      /** Where relative `cwd` arguments resolve; default this process's working directory. */
      readonly cwd?: string;
      /** The commands' environment; default this process's. */
      readonly env?: NodeJS.ProcessEnv;
      /** `false`: the output is not written into the call's scope (it is still on the result). */
      readonly streamOutput?: boolean;
      /** Sees each chunk of output as it comes. */
      readonly onOutput?: (text: string, stream: OutputStream) => void;
      readonly shell?: undefined;
    }
);

/**
 * The one way to run a tool call's shell command (`call.run(commandExecutor({ shell }))`): in the
 * sandbox, or outside it when the host says `unsandboxed: true`. The command runs in a process
 * group of its own; the call's stop (its `AbortSignal`) and the deadline kill the whole group, so
 * nothing it started in the background outlives it, and the rest of the group is ended when the
 * command exits. Output is streamed into the call's scope as it comes. Rejects with
 * {@link ShellCommandError} for a failed, stopped or timed-out command, `sandbox.invalid_command`
 * without a command string, and as the shell's executor does in the sandbox.
 */
export function commandExecutor(options: CommandExecutorOptions): ShellExecutor {
  return async (args, context) => {
    const deadline = options.timeoutMs !== undefined ? AbortSignal.timeout(options.timeoutMs) : undefined;
    const signal = deadline ? AbortSignal.any([context.signal, deadline]) : context.signal;
    try {
      const previewed = await landPreview(context);
      if (previewed) return previewed;
      if (options.shell) return await options.shell.execute(args, { ...context, signal });
      return await runUnsandboxed(options, args, context, signal);
    } catch (error) {
      if (deadline?.aborted && !context.signal.aborted && error instanceof ShellCommandError) {
        const late = new ShellCommandError(error.result);
        late.message = `The command ran past its deadline of ${options.timeoutMs} ms and was ended with everything it started.`;
        throw late;
      }
      throw error;
    }
  };
}

async function runUnsandboxed(
  options: Extract<CommandExecutorOptions, { readonly unsandboxed: true }>,
  args: Readonly<Record<string, unknown>>,
  context: RunContext,
  signal: AbortSignal,
): Promise<ShellCommandResult> {
  const command = commandOf(args);
  const cwd = resolve(options.cwd ?? process.cwd(), typeof args.cwd === 'string' ? args.cwd : '.');
  const scope = context.call.scope();
  const sink = new OutputSink((markdown) => scope.text(markdown));
  const exit = await runProcess({
    file: '/bin/bash',
    args: ['-c', command],
    cwd,
    env: options.env ?? process.env,
    signal,
    onOutput: (text, stream) => {
      options.onOutput?.(text, stream);
      if (options.streamOutput !== false) sink.push(text);
    },
  });
  sink.flush();
  const result: ShellCommandResult = {
    command,
    cwd,
    exitCode: exit.exitCode,
    signal: exit.signal,
    aborted: exit.aborted,
    sandboxed: false,
    output: exit.output,
    violations: [],
  };
  if (result.aborted || result.exitCode !== 0) throw new ShellCommandError(result);
  return result;
}

/**
 * On an allow of a previewed request: lands exactly the previewed change and returns the preview's
 * result; files changed since the preview ask again with a fresh one; a preview whose effect
 * reaches outside the workspace is discarded and the command runs for real (undefined).
 */
async function landPreview(context: RunContext): Promise<ShellCommandResult | undefined> {
  const previewed = context.decision.previewed;
  if (!previewed) return undefined;
  const scope = context.call.scope();
  const { preview } = previewed;
  if (!preview.applicable) {
    await previewed.discard();
    scope.service(`Runs again, for real: ${preview.reason ?? 'its preview cannot be applied'}.`);
    return undefined;
  }
  if ((await previewed.apply()) === 'stale') {
    scope.service('Files it touches changed since the preview: asking again with a fresh preview.');
    const again = await context.call.requestPermission();
    if (again.outcome !== 'allow') {
      throw new SdkError(
        'sandbox.preview_stale',
        'Not allowed again after a fresh preview; nothing landed.',
        {
          hint: 'the workspace changed while the request waited',
        },
      );
    }
    return landPreview({ ...context, decision: again });
  }
  scope.service(`Applied the previewed change: ${preview.files.length} file(s), exactly as previewed.`);
  const command = typeof context.call.args.command === 'string' ? context.call.args.command : '';
  const result: ShellCommandResult = {
    command,
    cwd: '',
    exitCode: preview.exitCode,
    signal: null,
    aborted: false,
    sandboxed: true,
    output: preview.outputTail,
    violations: [],
  };
  if (result.exitCode !== 0) throw new ShellCommandError(result);
  return result;
}
