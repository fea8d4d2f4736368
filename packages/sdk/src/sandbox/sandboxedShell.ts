import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { Subject, type Observable } from 'rxjs';
import { SdkError, isSdkError } from '../errors.js';
import { LEAVE_SANDBOX_ARG, type SandboxPolicy } from '../policy/sandboxPolicy.js';
import { asyncIterableOf, type IterateOptions } from '../ports/asyncIterable.js';
import type { RunContext } from '../stream/builders.js';
import { baseConfinement, listsOf, type ConfinementInputs } from './confinement.js';
import { PlaceholderExcludes } from './gitExcludes.js';
import { credentialPaths, homeReadRules, sandboxEnv } from './hostSecrets.js';
import { OutputSink } from './outputSink.js';
import { runProcess, type OutputStream, type ProcessExit } from './processRun.js';
import {
  acquireRuntime,
  INSTALL_HINT,
  loadRuntime,
  type RuntimeConfig,
  type RuntimeManager,
} from './runtime.js';
import {
  describeViolation,
  uniqueViolations,
  violationsFromRuntime,
  violationsFromStderr,
  type SandboxViolation,
} from './violations.js';
import { WarmPool } from './warmPool.js';
import { newCommandId } from './warmSandbox.js';

/** Options of {@link sandboxedShell} (docs/sandbox.md, "The defaults" and "Widening them"). */
export interface SandboxedShellOptions {
  /** Absolute path of the workspace: the only place a command may write, and where it runs by default. */
  readonly workspaceRoot: string;
  /**
   * A home hidden from commands beside the user's own (but for what is read back, see
   * {@link allowRead}), and the command's `HOME`; default the user's home directory.
   */
  readonly homeDir?: string;
  /**
   * The Happy home this host's session uses (its `agent.key`, `access.key`), hidden from commands;
   * default `HAPPY_HOME_DIR` of {@link env}. `~/.happy` and `~/.happy-session` are hidden anyway.
   */
  readonly happyHomeDir?: string;
  /** Hosts a command may connect to (`example.com`, `*.example.org`, `api.x.com:443`); default none. */
  readonly allowedHosts?: readonly string[];
  /** More absolute paths a command may write below (protected names at their roots stay denied). */
  readonly allowWrite?: readonly string[];
  /** More absolute paths that stay read-only. */
  readonly denyWrite?: readonly string[];
  /** More absolute paths a command may not read. */
  readonly denyRead?: readonly string[];
  /**
   * Absolute paths inside the hidden home directories that commands may read (`~/.gitconfig`,
   * a tool's cache). The homes ({@link homeDir} and the user's) are unreadable but for the
   * workspace, the writable roots, the programs on `PATH` and these (docs/sandbox.md, "What is
   * readable"); a credential file of the tables stays hidden inside them.
   */
  readonly allowRead?: readonly string[];
  /**
   * Where a command's environment comes from; default this process's. Only an allowlist of it
   * reaches the command (`PATH`, `LANG`, `LC_*`, `TERM`, `TZ`, `USER`, …, docs/sandbox.md, "What is
   * hidden"), plus {@link passEnv}; `HOME` is {@link homeDir}. Its credential variables
   * (`HAPPY_HOME_DIR`, `KUBECONFIG`, `AWS_SHARED_CREDENTIALS_FILE`, …) say which files to hide.
   */
  readonly env?: NodeJS.ProcessEnv;
  /** More names of {@link env} that commands get (`['GOPATH', 'JAVA_HOME']`). */
  readonly passEnv?: readonly string[];
  /** Absolute path of `bwrap` (Linux); default the one on the `PATH`. */
  readonly bwrapPath?: string;
  /** Absolute path of `socat` (Linux); default the one on the `PATH`. */
  readonly socatPath?: string;
  /** `false`: the executor does not write the command's output into the call's scope. */
  readonly streamOutput?: boolean;
  /** Sees each chunk of output as it comes. */
  readonly onOutput?: (text: string, stream: OutputStream) => void;
  /** Entries of the workspace looked at (when the sandbox starts) for protected paths; default 50,000. */
  readonly scanLimit?: number;
}

/** Options of {@link SandboxedShell.run}. */
export interface ShellRunOptions {
  /** Where the command runs; relative to the workspace root; default the root. */
  readonly cwd?: string;
  /** Ends the command and everything it started. */
  readonly signal?: AbortSignal;
  /** Sees each chunk of output. */
  readonly onOutput?: (text: string, stream: OutputStream) => void;
  /** Run outside the sandbox (what a person allowed when the call asked to leave it). */
  readonly unsandboxed?: boolean;
  /** The call this command is for: its violations carry the id. */
  readonly callId?: string;
}

/** What a command did. */
export interface ShellCommandResult {
  readonly command: string;
  readonly cwd: string;
  /** The exit status; `null` when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** True when the call's signal stopped it. */
  readonly aborted: boolean;
  /** True when it ran inside the sandbox. */
  readonly sandboxed: boolean;
  /** Both output streams, in order (the last 256 KiB). */
  readonly output: string;
  /** What the sandbox blocked. */
  readonly violations: readonly SandboxViolation[];
}

/** A command that exited with a status other than 0, was ended by a signal or was stopped. */
export class ShellCommandError extends Error {
  override readonly name = 'ShellCommandError';
  constructor(readonly result: ShellCommandResult) {
    super(failureText(result));
  }
}

/** The executor {@link SandboxedShell.execute} is: give it to `toolCall.run()`. */
export type ShellExecutor = (
  args: Readonly<Record<string, unknown>>,
  context: RunContext,
) => Promise<ShellCommandResult>;

/** A shell whose commands run confined (docs/sandbox.md). */
export interface SandboxedShell {
  /** False where the sandbox cannot run here; {@link unavailable} says why. */
  readonly available: boolean;
  /** Why the sandbox cannot run (`sandbox.unavailable`, with a hint). */
  readonly unavailable: SdkError<'sandbox.unavailable'> | undefined;
  /** For the gate's `sandbox` option: Bash calls run unasked only while this says available. */
  readonly policy: SandboxPolicy;
  /** The workspace root, resolved. */
  readonly workspaceRoot: string;
  /**
   * The executor for a Bash call's `toolCall.run()`: runs `args.command` in `args.cwd` (relative to
   * the workspace), streams the output into the call's scope, reports what the sandbox blocked on
   * the result and on {@link violations$}, and ends with the call's signal. A call whose
   * `dangerouslyDisableSandbox` a person allowed runs outside. Rejects with
   * {@link ShellCommandError} when the command fails, `sandbox.unavailable` when it cannot run
   * confined, `sandbox.invalid_command` without a command string.
   */
  readonly execute: ShellExecutor;
  /** Runs one command line (the executor's work without a call). Rejects only as `execute` does for the sandbox. */
  run(command: string, options?: ShellRunOptions): Promise<ShellCommandResult>;
  /** Every violation of every command, as it is seen. */
  readonly violations$: Observable<SandboxViolation>;
  /** {@link violations$} as an async iterable. */
  violations(options?: IterateOptions): AsyncGenerator<SandboxViolation>;
  /** Stops the runtime once no other shell of the same configuration uses it. */
  close(): Promise<void>;
}

/**
 * Makes a shell whose commands run in the operating system's sandbox (bubblewrap and a network
 * proxy on Linux, through `@anthropic-ai/sandbox-runtime`, an optional peer dependency): writes
 * only inside the workspace root and off the protected paths of docs/permissions-policy.md, reads
 * everywhere but the home directories (of which the workspace, the programs on `PATH` and
 * `allowRead` are read back) and the secrets, and no network beyond `allowedHosts` (docs/sandbox.md).
 *
 * Resolves also where the sandbox cannot run: then `available` is false, `unavailable` says why,
 * `policy` makes the gate ask, and every command rejects with `sandbox.unavailable`; nothing ever
 * runs unconfined by default.
 *
 * @throws {SdkError} `sandbox.invalid_options` for a workspace root that is not an absolute path
 *   of a directory, `sandbox.busy` while a shell of another configuration is open in this process.
 */
export async function sandboxedShell(options: SandboxedShellOptions): Promise<SandboxedShell> {
  const inputs = await inputsOf(options);
  const runtimeConfig: RuntimeConfig = {
    network: { allowedDomains: [...(options.allowedHosts ?? [])], deniedDomains: [] },
    filesystem: listsOf(baseConfinement(inputs)),
    ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}),
    ...(options.socatPath !== undefined ? { socatPath: options.socatPath } : {}),
  };
  let manager: RuntimeManager | undefined;
  let release: (() => Promise<void>) | undefined;
  let unavailable: SdkError<'sandbox.unavailable'> | undefined;
  try {
    manager = await loadRuntime();
    // Windows runs its sandbox under another account with a runtime of its own: not wired here.
    if (process.platform === 'win32' || !manager.isSupportedPlatform()) {
      throw unavailableError(`The sandbox does not run on ${process.platform}.`);
    }
    release = await acquireRuntime(manager, runtimeConfig);
  } catch (error) {
    if (isSdkError(error, 'sandbox.busy')) throw error;
    unavailable = isSdkError(error, 'sandbox.unavailable')
      ? error
      : unavailableError(`The sandbox cannot start here: ${messageOf(error)}`, error);
  }
  const shell = new Shell(options, inputs, runtimeConfig, manager, release, unavailable);
  if (!unavailable) await shell.probe();
  return shell;
}

class Shell implements SandboxedShell {
  private readonly violationsSubject = new Subject<SandboxViolation>();
  readonly violations$ = this.violationsSubject.asObservable();
  readonly execute: ShellExecutor = (args, context) => this.executeCall(args, context);
  private readonly excludes: PlaceholderExcludes;
  /** The warm sandbox commands run in (docs/sandbox.md, "The warm sandbox"). */
  private readonly pool: WarmPool | undefined;

  constructor(
    private readonly options: SandboxedShellOptions,
    private readonly inputs: ConfinementInputs,
    private readonly runtimeConfig: RuntimeConfig,
    private readonly manager: RuntimeManager | undefined,
    private release: (() => Promise<void>) | undefined,
    public unavailable: SdkError<'sandbox.unavailable'> | undefined,
  ) {
    this.excludes = new PlaceholderExcludes(inputs.homeDir, options.env ?? process.env);
    this.pool = manager
      ? new WarmPool({
          manager,
          inputs,
          network: runtimeConfig.network,
          path: (options.env ?? process.env).PATH,
          excludes: this.excludes,
          failed: (error) => unavailableError(`The sandbox could not start: ${messageOf(error)}`, error),
        })
      : undefined;
  }

  get available(): boolean {
    return this.unavailable === undefined;
  }

  get policy(): SandboxPolicy {
    return { available: this.available };
  }

  get workspaceRoot(): string {
    return this.inputs.workspaceRoot;
  }

  violations(options?: IterateOptions): AsyncGenerator<SandboxViolation> {
    return asyncIterableOf(this.violations$, options);
  }

  async close(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    this.unavailable ??= unavailableError('This sandboxed shell is closed.');
    this.violationsSubject.complete();
    await this.pool?.close();
    await this.excludes.close();
    await release?.();
  }

  /** Starts the warm sandbox and runs `true` in it: a kernel without user namespaces refuses only then. */
  async probe(): Promise<void> {
    const result = await this.run('true').catch((error: unknown) => error);
    if (result instanceof Error || (result as ShellCommandResult).exitCode !== 0) {
      const why = result instanceof Error ? result.message : (result as ShellCommandResult).output.trim();
      const error = unavailableError(
        `The sandbox cannot start a command here: ${why || 'bubblewrap failed'}`,
      );
      await this.close();
      this.unavailable = error;
    }
  }

  async run(command: string, options: ShellRunOptions = {}): Promise<ShellCommandResult> {
    const cwd = resolve(this.inputs.workspaceRoot, options.cwd ?? '.');
    const signal = options.signal ?? new AbortController().signal;
    const onOutput = (text: string, stream: OutputStream): void => {
      options.onOutput?.(text, stream);
      this.options.onOutput?.(text, stream);
    };
    if (options.unsandboxed) {
      // Outside, as the person allowed: the host's whole environment, as any command of theirs.
      const env = { ...(this.options.env ?? process.env), HOME: this.inputs.homeDir };
      const exit = await runProcess({ file: '/bin/bash', args: ['-c', command], cwd, env, signal, onOutput });
      return resultOf(command, cwd, exit, false, []);
    }
    if (this.unavailable || !this.manager || !this.pool)
      throw this.unavailable ?? unavailableError('The sandbox is not loaded.');
    const manager = this.manager;
    const warm = await this.pool.lease();
    const commandId = newCommandId();
    let exit: ProcessExit;
    try {
      const env = sandboxEnv(this.options.env ?? process.env, this.inputs.homeDir, this.options.passEnv);
      exit = await warm.sandbox.exec(command, {
        cwd,
        env: { ...env, ...warm.gitEnv },
        signal,
        onOutput,
        commandId,
      });
    } finally {
      await warm.release();
    }
    const lines = manager
      .getSandboxViolationStore()
      .getViolationsForCommand(commandId)
      .map((v) => v.line);
    const violations = uniqueViolations([
      ...violationsFromRuntime(lines, warm.confinement),
      ...violationsFromStderr(exit.stderr, cwd, warm.confinement),
    ]).map((v) => (options.callId !== undefined ? { ...v, callId: options.callId } : v));
    for (const v of violations) this.violationsSubject.next(v);
    return resultOf(command, cwd, exit, true, violations);
  }

  private async executeCall(
    args: Readonly<Record<string, unknown>>,
    context: RunContext,
  ): Promise<ShellCommandResult> {
    const command = commandOf(args);
    if (args.cwd !== undefined && typeof args.cwd !== 'string') {
      throw new SdkError('sandbox.invalid_command', '`cwd` of a shell call must be a string.', {
        hint: 'give the directory relative to the workspace root, or leave it out',
      });
    }
    const leaving = args[LEAVE_SANDBOX_ARG] !== undefined && args[LEAVE_SANDBOX_ARG] !== false;
    // Outside only when a person (or the bypass mode) allowed a call that asked to leave.
    const unsandboxed = leaving && (context.decision.source === 'user' || context.decision.source === 'mode');
    const scope = context.call.scope();
    if (!unsandboxed && this.available) {
      // The stream says how the call ran, whatever the app shows of the decision.
      scope.service(
        `Runs sandboxed: writes only inside ${this.inputs.workspaceRoot}, ${networkText(this.runtimeConfig)}.`,
      );
    }
    const sink = new OutputSink((markdown) => scope.text(markdown));
    const stream = this.options.streamOutput !== false;
    const result = await this.run(command, {
      ...(typeof args.cwd === 'string' ? { cwd: args.cwd } : {}),
      signal: context.signal,
      unsandboxed,
      callId: context.call.callId,
      ...(stream ? { onOutput: (text: string) => sink.push(text) } : {}),
    });
    sink.flush();
    if (result.violations.length > 0 && !context.call.ended) {
      try {
        scope.service(`The sandbox blocked ${result.violations.map(describeViolation).join(', ')}.`);
      } catch {
        // The turn ended meanwhile; the result still carries them.
      }
    }
    if (result.aborted || result.exitCode !== 0) throw new ShellCommandError(result);
    return result;
  }
}

async function inputsOf(options: SandboxedShellOptions): Promise<ConfinementInputs> {
  const absolute = (what: string, paths: readonly string[] | undefined): string[] =>
    (paths ?? []).map((p) => {
      if (typeof p !== 'string' || !isAbsolute(p)) {
        throw new SdkError(
          'sandbox.invalid_options',
          `${what} must be absolute paths; got ${JSON.stringify(p)}.`,
          {
            hint: 'resolve the paths against the workspace root first',
          },
        );
      }
      return resolve(p);
    });
  const [root] = absolute('workspaceRoot', [options.workspaceRoot]);
  const workspaceRoot = await realpath(root!).catch((cause: unknown) => {
    throw new SdkError(
      'sandbox.invalid_options',
      `The workspace root ${root} is not a directory that exists.`,
      {
        hint: 'create it first, or pass the directory the agent works in',
        cause,
      },
    );
  });
  const home = absolute('homeDir', [options.homeDir ?? homedir()])[0]!;
  const homeDir = await realpath(home).catch(() => home);
  const env = options.env ?? process.env;
  const secrets = credentialPaths({
    homeDir,
    env,
    workspaceRoot,
    ...(options.happyHomeDir !== undefined ? { happyHomeDir: options.happyHomeDir } : {}),
  });
  const allowWrite = absolute('allowWrite', options.allowWrite);
  const allowRead = absolute('allowRead', options.allowRead);
  return {
    workspaceRoot,
    homeDir,
    allowWrite,
    denyWrite: absolute('denyWrite', options.denyWrite),
    denyRead: [...secrets, ...absolute('denyRead', options.denyRead)],
    hideHome: () => homeReadRules({ homeDir, workspaceRoot, allowWrite, allowRead, env }),
    scanLimit: options.scanLimit ?? 50_000,
  };
}

function resultOf(
  command: string,
  cwd: string,
  exit: ProcessExit,
  sandboxed: boolean,
  violations: readonly SandboxViolation[],
): ShellCommandResult {
  return {
    command,
    cwd,
    exitCode: exit.exitCode,
    signal: exit.signal,
    aborted: exit.aborted,
    sandboxed,
    output: exit.output,
    violations,
  };
}

function failureText(r: ShellCommandResult): string {
  const how = r.aborted
    ? 'was stopped'
    : r.exitCode === null
      ? `was ended by ${r.signal ?? 'a signal'}`
      : `exited with status ${r.exitCode}`;
  const where = r.sandboxed ? ' (sandboxed)' : '';
  const blocked =
    r.violations.length > 0 ? ` The sandbox blocked ${r.violations.map(describeViolation).join(', ')}.` : '';
  return `The command${where} ${how}.${blocked}`;
}

function networkText(config: RuntimeConfig): string {
  const hosts = config.network.allowedDomains;
  return hosts.length === 0 ? 'no network' : `network only to ${hosts.join(', ')}`;
}

function unavailableError(message: string, cause?: unknown): SdkError<'sandbox.unavailable'> {
  return new SdkError('sandbox.unavailable', message, {
    hint: INSTALL_HINT,
    ...(cause !== undefined ? { cause } : {}),
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A shell call's command line, `args.command`; anything else is `sandbox.invalid_command`. */
export function commandOf(args: Readonly<Record<string, unknown>>): string {
  const command = args.command;
  if (typeof command !== 'string' || command.trim() === '') {
    throw new SdkError(
      'sandbox.invalid_command',
      'A shell call needs its command line as the string `command`.',
      {
        hint: 'call toolCall({ toolName: "Bash", args: { command: "…" } })',
      },
    );
  }
  return command;
}
