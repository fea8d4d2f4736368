import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { newId, SdkError } from 'happy-session';
import type { Logger, PermissionDecision, TurnEndStatus } from 'happy-session';
import { connect } from 'happy-session/node';
import type { HappyEnv, Session } from 'happy-session/node';
import { EXIT } from '../exitCodes.js';
import type { CliErrorCode } from '../errorCodes.js';
import { previewLines } from '../previewLines.js';
import { landPreview, StepPreviewer } from '../run/previewedRun.js';
import { describeFailure } from '../output.js';
import type { Print } from '../output.js';
import { progressPrinter } from '../progress/progressPrinter.js';
import { runChild } from '../run/childProcess.js';
import { openSandbox, runSandboxedChild } from '../run/sandboxedChild.js';
import type { SandboxedShell } from 'happy-session/sandbox';
import { exitCodeOf, turnStatusOf } from '../run/exitStatus.js';
import type { ExitStatus } from '../run/exitStatus.js';
import { RunClient } from '../run/runClient.js';
import { nestingEnv, outerRunOf } from '../run/runEnv.js';
import type { OuterRun } from '../run/runEnv.js';
import { RunServer } from '../run/runServer.js';
import { StepTree, quoteCommand } from '../run/stepTree.js';
import type { OutputLimits } from '../run/outputLog.js';

/** Options of `happy-session run`. */
export interface RunOptions {
  /** The step's title (and a new session's); default the command line. */
  readonly title?: string;
  /** Append the turn to this existing session instead of creating one. */
  readonly session?: string;
  /** Ask for permission first; run the command only on allow. */
  readonly ask?: boolean;
  readonly server?: string;
  /** Do not print the session id on stderr. */
  readonly quiet?: boolean;
  /** Files sent into the step once the command has ended (a report, a screenshot, a recording). */
  readonly attach?: readonly string[];
  /** Run the command in the sandbox: writes only inside the working directory, no network (docs/sandbox.md). */
  readonly sandbox?: boolean;
  /**
   * With `sandbox`: paths in a home the command may read (the homes are hidden in the sandbox but
   * for a short list; docs/sandbox.md, "What is readable"), relative to the working directory.
   */
  readonly allowRead?: readonly string[];
  /**
   * With `ask`: run the command first on a copy of the working directory, with no network, and
   * ask with what it would change; on allow exactly that lands (docs/sandbox.md, "Preview before approval").
   */
  readonly preview?: boolean;
}

/** What `run` works with besides its options; `main.ts` passes the process's, tests their own. */
export interface RunContext {
  /** Where the command's output is echoed. */
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Lines of `run`'s own (the session id, warnings, errors). */
  readonly printError: Print;
  readonly logger: Logger;
  /** Environment to read `HAPPY_*` from; the command gets the process's environment plus this. */
  readonly env: HappyEnv;
  readonly homeDir?: string;
  readonly cwd?: string;
  /** Output batching and bounds; tests make them small. */
  readonly limits?: OutputLimits;
}

/** Exit code of a run whose permission request was denied (docs/cli.md, "Exit codes"). */
export const DENIED_EXIT = EXIT.denied;

/**
 * `happy-session run -- <command…>`: runs the command as a step of a live session (docs/cli.md,
 * "run"). Outermost, it connects, starts a turn with the command's step, serves the socket nested
 * runs report to, and ends the step and the turn with the command's status. Inside another run, it
 * reports its step to that run instead. Resolves with the command's exit status (77 when a
 * permission request was denied, 130 when it was cancelled).
 *
 * @throws {SdkError} `cli.usage` for options that do not go together (`preview` without `ask`,
 *   `allowRead` without `sandbox`: this is the one check of them, exit 2); `credentials.*`,
 *   `transport.*` when the outermost run cannot open its session: the command is not run then.
 */
export async function runCommand(
  command: readonly string[],
  options: RunOptions,
  context: RunContext,
): Promise<number> {
  if (options.preview && !options.ask)
    throw new SdkError<CliErrorCode>(
      'cli.usage',
      '--preview needs --ask: it previews what the permission request asks about.',
      {
        hint: 'happy-session run --ask --preview -- <command…>',
      },
    );
  if (options.allowRead?.length && !options.sandbox)
    throw new SdkError<CliErrorCode>(
      'cli.usage',
      '--allow-read needs --sandbox: outside it every file is readable.',
      {
        hint: 'happy-session run --sandbox --allow-read <path> -- <command…>',
      },
    );
  let shell: SandboxedShell | undefined;
  if (options.sandbox) {
    const cwd = context.cwd ?? process.cwd();
    shell = await openSandbox(
      cwd,
      { ...process.env, ...context.env },
      context.printError,
      (options.allowRead ?? []).map((path) => resolve(cwd, path)),
      context.homeDir,
    );
    if (!shell) return EXIT.failure;
  }
  try {
    return await runIn(command, options, context, shell);
  } finally {
    await shell?.close();
  }
}

async function runIn(
  command: readonly string[],
  options: RunOptions,
  context: RunContext,
  shell: SandboxedShell | undefined,
): Promise<number> {
  const outer = outerRunOf(context.env as Record<string, string | undefined>);
  if (outer) {
    const client = await RunClient.open(outer.socket).catch((error: unknown) => {
      context.printError(
        `happy-session run: the outer run is not reachable (${String(error)}); starting a session of its own`,
      );
      return undefined;
    });
    if (client) return runNested(command, options, context, outer, client, shell);
  }
  return runOutermost(command, options, context, shell);
}

async function runOutermost(
  command: readonly string[],
  options: RunOptions,
  context: RunContext,
  shell: SandboxedShell | undefined,
): Promise<number> {
  const title = options.title ?? quoteCommand(command);
  const cwd = context.cwd ?? process.cwd();
  const previewer = options.preview ? new StepPreviewer(cwd, { ...process.env, ...context.env }) : undefined;
  const session = await connect({
    title,
    env: context.env,
    logger: context.logger,
    // run forwards signals to the command and records how it ended; it ends the session itself.
    shutdownSignals: false,
    ...(options.server !== undefined ? { server: options.server } : {}),
    ...(context.homeDir !== undefined ? { homeDir: context.homeDir } : {}),
    ...(options.session !== undefined ? { sessionId: options.session, archiveOnClose: false } : {}),
    ...(previewer ? { permissions: { workspaceRoot: cwd, preview: previewer.preview } } : {}),
  });
  let code: number;
  // Until the command's status says otherwise: an error on the way ends the turn as failed.
  let turnStatus: TurnEndStatus = 'failed';
  const turn = session.turn();
  try {
    if (!options.quiet) context.printError(`happy-session run: session ${session.id}`);
    const tree = new StepTree(turn, context.limits);
    const root = tree.start({ id: newId(), title, command, cwd });
    /** The outermost step's preview the person allowed, to land instead of running the command. */
    let previewed: PermissionDecision['previewed'];
    const ask = async (stepId: string): Promise<'allow' | 'deny' | 'cancelled'> => {
      const step = tree.get(stepId);
      if (!step) return 'cancelled';
      if (previewer) previewer.armed = stepId === root.id;
      const stop = new AbortController();
      const cancel = (): void => stop.abort();
      process.once('SIGINT', cancel);
      process.once('SIGTERM', cancel);
      try {
        context.printError(
          `happy-session run: waiting for permission to run \`${step.commandLine}\`: allow or deny it in the Happy app or the viewer, or with \`happy-session answer ${session.id} ${step.call.callId} allow\` (or deny)`,
        );
        const shown = previewer ? showPreview(session, step.call.callId, context.printError) : undefined;
        const decision = await step.call
          .requestPermission({ signal: stop.signal })
          .finally(() => shown?.unsubscribe());
        const { outcome } = decision;
        if (stepId === root.id) previewed = decision.previewed;
        if (outcome !== 'cancelled')
          context.printError(
            `happy-session run: ${outcome === 'allow' ? 'allowed' : 'denied'}: ${step.commandLine}`,
          );
        return outcome;
      } finally {
        if (previewer) previewer.armed = false;
        process.off('SIGINT', cancel);
        process.off('SIGTERM', cancel);
      }
    };
    const decision = options.ask ? await ask(root.id) : 'allow';
    if (decision !== 'allow') {
      turnStatus = 'cancelled';
      return decision === 'deny' ? EXIT.denied : EXIT.interrupted;
    }
    const landed = previewed
      ? await landPreview(previewed, {
          note: (text) => void root.call.scope().service(text),
          printError: context.printError,
          stdout: context.stdout,
          onOutput: (text) => root.log.push(text),
          askAgain: async () => {
            previewed = undefined;
            const outcome = await ask(root.id);
            return { outcome, ...(previewed ? { previewed } : {}) };
          },
        })
      : ({ kind: 'run' } as const);
    if (landed.kind === 'deny' || landed.kind === 'cancelled') {
      turnStatus = 'cancelled';
      return landed.kind === 'deny' ? EXIT.denied : EXIT.interrupted;
    }
    if (landed.kind === 'applied') {
      const status: ExitStatus = {
        code: landed.exitCode,
        signal: landed.exitCode === null ? 'SIGKILL' : null,
      };
      tree.end(root.id, status);
      turnStatus = turnStatusOf(status);
      code = exitCodeOf(status);
      return code;
    }
    const attach = async (stepId: string, path: string): Promise<void> => {
      const printer = progressPrinter(context.stderr, basename(path));
      try {
        await tree.attach(stepId, path, (progress) => printer.update(progress));
      } finally {
        printer.done();
      }
    };
    const token = randomBytes(16).toString('hex');
    const server = await RunServer.listen(tree, token, { ask, attach }, context.logger);
    let status: ExitStatus;
    try {
      status = shell
        ? await runSandboxedChild(shell, command, {
            cwd,
            onOutput: (text) => root.log.push(text),
            stdout: context.stdout,
            stderr: context.stderr,
            printError: context.printError,
          })
        : await runChild(command, {
            env: {
              ...process.env,
              ...context.env,
              ...nestingEnv({ socket: server.path, parent: root.id, token }),
            },
            cwd,
            onOutput: (text) => root.log.push(text),
            stdout: context.stdout,
            stderr: context.stderr,
          });
    } finally {
      await server.close();
    }
    if (status.spawnError !== undefined) context.printError(spawnFailure(command, status.spawnError));
    for (const file of options.attach ?? []) {
      // A file that cannot be sent is reported; the exit status stays the command's.
      await attach(root.id, resolve(cwd, file)).catch((error: unknown) => {
        for (const line of describeFailure(error)) context.printError(line);
      });
    }
    tree.end(root.id, status);
    turnStatus = turnStatusOf(status);
    code = exitCodeOf(status);
  } finally {
    turn.end(turnStatus);
    await session.close().catch((error: unknown) => {
      context.printError(
        `happy-session run: the session's last records were not delivered: ${String(error)}`,
      );
    });
  }
  return code;
}

async function runNested(
  command: readonly string[],
  options: RunOptions,
  context: RunContext,
  outer: OuterRun,
  client: RunClient,
  shell: SandboxedShell | undefined,
): Promise<number> {
  const id = newId();
  const cwd = context.cwd ?? process.cwd();
  let reporting = true;
  const report = (what: Promise<unknown>): Promise<void> =>
    what.then(
      () => undefined,
      (error: unknown) => {
        if (reporting)
          context.printError(`happy-session run: stopped reporting to the outer run: ${String(error)}`);
        reporting = false;
      },
    );
  try {
    const started = await client
      .request({
        t: 'start',
        token: outer.token,
        id,
        parent: outer.parent,
        title: options.title ?? quoteCommand(command),
        command: [...command],
        cwd,
        ask: options.ask === true,
      })
      .catch((error: unknown) => ({ error: String(error), decision: undefined }));
    if (started.error !== undefined) {
      // Fail closed: a step that was to be asked about is not run unasked.
      context.printError(`happy-session run: the outer run refused this step: ${started.error}`);
      if (options.ask) return EXIT.failure;
      reporting = false;
    }
    if (started.decision !== undefined && started.decision !== 'allow') {
      return started.decision === 'deny' ? EXIT.denied : EXIT.interrupted;
    }
    const onOutput = (text: string): Promise<void> | undefined =>
      reporting ? report(client.request({ t: 'output', id, text })) : undefined;
    const status = shell
      ? await runSandboxedChild(shell, command, {
          cwd,
          onOutput: (text) => void onOutput(text),
          stdout: context.stdout,
          stderr: context.stderr,
          printError: context.printError,
        })
      : await runChild(command, {
          env: { ...process.env, ...context.env, ...nestingEnv({ ...outer, parent: id }) },
          cwd,
          onOutput,
          stdout: context.stdout,
          stderr: context.stderr,
        });
    if (status.spawnError !== undefined) context.printError(spawnFailure(command, status.spawnError));
    for (const file of options.attach ?? []) {
      if (!reporting) break;
      const sent = await client
        .request({ t: 'attach', id, path: resolve(cwd, file) })
        .catch((error: unknown) => ({
          error: String(error),
        }));
      if (sent.error !== undefined)
        context.printError(`happy-session run: ${file} was not attached: ${sent.error}`);
    }
    if (reporting) {
      await report(
        client.request({
          t: 'exit',
          id,
          code: status.code,
          signal: status.signal,
          ...(status.spawnError !== undefined ? { spawnError: status.spawnError } : {}),
        }),
      );
    }
    return exitCodeOf(status);
  } finally {
    client.close();
  }
}

function spawnFailure(command: readonly string[], code: string): string {
  return code === 'ENOENT'
    ? `happy-session run: command not found: ${command[0]}`
    : `happy-session run: ${command[0]} could not be started (${code})`;
}

/** Prints the preview of the call's permission request on stderr when it is appended. */
function showPreview(session: Session, callId: string, printError: Print): { unsubscribe(): void } {
  return session.writer.messages$.subscribe((message) => {
    if (message.type !== 'permission-request' || message.callId !== callId) return;
    for (const line of previewLines(message)) printError(`happy-session run: ${line}`);
  });
}
