import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { answerCommand } from './commands/answer.js';
import { attachCommand } from './commands/attach.js';
import { demoCommand } from './commands/demo.js';
import { keygenCommand } from './commands/keygen.js';
import { linkCommand } from './commands/link.js';
import { loginCommand } from './commands/login.js';
import { sendCommand } from './commands/send.js';
import { stopCommand } from './commands/stop.js';
import { DEFAULT_PORT, serveCommand } from './commands/serve.js';
import type { ServeOptions } from './commands/serve.js';
import { runCommand } from './commands/run.js';
import { sessionsCommand } from './commands/sessions.js';
import { watchCommand } from './commands/watch.js';
import { CHOICES } from './commands/answer.js';
import type { HappyEnv } from 'happy-session/node';
import { EXIT, failureExit } from './exitCodes.js';
import { describeFailure, failureJson, usageJson } from './output.js';
import type { Print } from './output.js';
import type { ProgressTarget } from './progress/fileProgress.js';
import { printLogger } from './printLogger.js';
import type { Terminal } from './terminal.js';
import type { Writable } from 'node:stream';

/** What the CLI runs against: the process in `main.ts`, or a test's stand-ins. */
export interface CliContext {
  /** Standard output, one line per call. */
  readonly print: Print;
  /** Standard error, one line per call. */
  readonly printError: Print;
  /** The terminal `watch` draws on. */
  readonly terminal: () => Terminal;
  /**
   * A signal aborted by Ctrl-C, for commands that wait and want to stop cleanly (exit 130).
   * Commands that never ask keep the default: Ctrl-C ends the process.
   */
  readonly interrupts: () => AbortSignal;
  readonly env?: HappyEnv;
  /** Raw output streams for commands that pass bytes through (`run`); default the process's. */
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** A terminal for upload progress bars (the process's stderr); without one, plain lines on `printError`. */
  readonly progressStream?: NodeJS.WriteStream;
}

/** True when the command line asks for JSON (before a `--` that ends the options). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** Collects a repeated option (`--file a --file b`). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0 picks a free one).');
  }
  return n;
}

function megabytes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a size in MB is a number above 0.');
  return n;
}

const serverOption = (): Option =>
  new Option(
    '--server <url>',
    'Happy server URL (default: HAPPY_SERVER_URL, settings.json, then Happy’s server)',
  );

/**
 * Runs `happy-session` with `argv` (the arguments after the program name) and resolves with the
 * exit code of `docs/cli.md`: 0 ok, 1 failure, 2 usage, 130 interrupted. Errors are printed to
 * `printError` with their hint, never thrown. A usage error is commander's (unknown option,
 * missing argument) or a command's own `SdkError` (`cli.usage`: options that do not go together,
 * decided by the command alone); both end with 2. `serve` resolves once the relay listens; it keeps
 * running until SIGINT or SIGTERM.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  let code: number = EXIT.ok;
  const { print, printError } = context;
  const env = context.env ?? process.env;
  const json = wantsJson(argv);
  // With --json, a usage error is one JSON line on stderr (below), not commander's text.
  let usageError: string | undefined;
  const progress: ProgressTarget = { stream: context.progressStream, printLine: printError };
  const program = new Command()
    .name('happy-session')
    .description('Write end-to-end encrypted Happy session streams, gate tool calls, run a local relay.')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => print(text.replace(/\n$/, '')),
      writeErr: (text) => {
        if (!json) printError(text.replace(/\n$/, ''));
      },
      outputError: (text, write) => {
        if (json) usageError = text.replace(/^error: /, '').trim();
        else write(text);
      },
    })
    .showHelpAfterError('(run with --help for usage)')
    // `run -- make -j4`: what follows the command name belongs to the command, not to us.
    .enablePositionalOptions();

  program
    .command('serve')
    .description('Run the embedded Happy-compatible relay until Ctrl-C or SIGTERM')
    .addOption(
      new Option('--port <port>', 'TCP port; 0 picks a free one').argParser(port).default(DEFAULT_PORT),
    )
    .option('--host <address>', 'interface to bind', '127.0.0.1')
    .option(
      '--data <dir>',
      'keep the database and attachments in this directory (default: <happy home>/relay)',
    )
    .addOption(
      new Option(
        '--memory',
        'keep nothing on disk: a throwaway relay, its sessions gone when it stops',
      ).conflicts('data'),
    )
    .addOption(
      new Option('--attachment-quota <MB>', 'attachment storage per account, in MB (default 1024)').argParser(
        megabytes,
      ),
    )
    .option(
      '--print-secret',
      "print a viewer link that holds your account's master secret (see docs/viewer.md)",
    )
    .option('--json', 'print {url, port, dataDir} as one JSON line')
    .option('--verbose', 'log every request to stderr')
    .action(async (options: ServeOptions & { verbose?: boolean }) => {
      await serveCommand(options, print, printLogger(printError, options.verbose ? 'debug' : 'warn'), env);
      code = EXIT.ok;
    });

  program
    .command('link')
    .description('Print a new one-time viewer link for the relay `serve` runs, without restarting it')
    .addOption(serverOption())
    .option('--session <id>', 'the session the page opens first')
    .option('--json', 'print {link} as one JSON line')
    .action(async (options: { server?: string; session?: string; json?: boolean }) => {
      code = await linkCommand(options, print, { env });
    });

  program
    .command('demo')
    .description(
      'Run the example agent against a relay started in process (or --server) and print the decrypted transcript',
    )
    .addOption(
      new Option(
        '--server <url>',
        'run it on this server with your keys, as connect() finds them (default: a relay started in process)',
      ),
    )
    .option('--keep', 'keep the relay and its viewer up after the transcript, until Ctrl-C')
    .option('--json', 'print the decrypted messages as JSON lines')
    .option('--interactive', 'answer the permission prompt from the keyboard (default: allow once)')
    .action(async (options: { server?: string; keep?: boolean; json?: boolean; interactive?: boolean }) => {
      const waits = options.interactive || options.keep;
      code = await demoCommand(options, print, {
        env,
        printInfo: options.json ? printError : print,
        ...(options.interactive
          ? {
              terminal: context.terminal(),
              // Prompts on stderr keep stdout JSON lines only.
              printPrompt: options.json ? printError : print,
            }
          : {}),
        ...(waits ? { signal: context.interrupts() } : {}),
      });
    });

  program
    .command('sessions')
    .description('List the sessions of the account in HAPPY_HOME_DIR (agent.key or access.key)')
    .addOption(serverOption())
    .option('--json', 'print a JSON array')
    .action(async (options: { server?: string; json?: boolean }) => {
      code = await sessionsCommand(options, print, { env });
    });

  program
    .command('watch')
    .description('Show a session live and answer its permission prompts with the number keys')
    .argument('<sessionId>', 'the session to watch (see `happy-session sessions`)')
    .addOption(serverOption())
    .option('--json', 'print one JSON line per record instead of the screen')
    .option('--once', 'print what is stored now and exit')
    .action(async (sessionId: string, options: { server?: string; json?: boolean; once?: boolean }) => {
      const signal = options.once ? undefined : context.interrupts();
      code = await watchCommand(sessionId, options, context.terminal(), print, {
        env,
        ...(signal ? { signal } : {}),
      });
    });

  program
    .command('run')
    .description('Run a command as a live step of a session; nested runs show as nested steps')
    .usage('[options] -- <command...>')
    .argument('<command...>', 'the command and its arguments (no shell: use sh -c for one)')
    .option('--title <title>', 'title of the step (and of a new session); default the command line')
    .option('--session <id>', 'append a turn to this existing session instead of creating one')
    .option('--ask', 'ask for permission first and run the command only if allowed (denied: exit 77)')
    .option('--sandbox', 'run the command sandboxed: it writes only inside the working directory, no network')
    .option(
      '--allow-read <path>',
      'with --sandbox: a path in a home the command may read (homes are hidden in the sandbox; repeatable)',
      (path: string, paths: string[] = []) => [...paths, path],
    )
    .option(
      '--preview',
      'with --ask: run it first on a copy of the working directory (no network) and ask with what it would change; allow lands exactly that',
    )
    .addOption(serverOption())
    .option('--quiet', 'do not print the session id on stderr')
    .option(
      '--attach <file>',
      'send a file into the step when the command ends (repeatable; photos and videos are fitted to the server’s limit)',
      (file: string, files: string[] = []) => [...files, file],
    )
    .passThroughOptions()
    .action(
      async (
        command: string[],
        options: {
          title?: string;
          session?: string;
          ask?: boolean;
          server?: string;
          quiet?: boolean;
          attach?: string[];
          sandbox?: boolean;
          allowRead?: string[];
          preview?: boolean;
        },
      ) => {
        code = await runCommand(command, options, {
          stdout: context.stdout ?? process.stdout,
          stderr: context.stderr ?? process.stderr,
          printError,
          logger: printLogger(printError, 'warn'),
          env,
        });
      },
    );

  program
    .command('send')
    .description('Send a prompt (and files) to the agent of a session, as the Happy app does')
    .argument('<sessionId>', 'the session (see `happy-session sessions`)')
    .argument('<text>', 'the prompt')
    .addOption(serverOption())
    .option('--file <path>', 'attach a file before the text (repeat for more)', collect)
    .option('--json', 'print {session, seq, messageId, files} as one JSON line')
    .action(
      async (
        sessionId: string,
        text: string,
        options: { server?: string; file?: string[]; json?: boolean },
      ) => {
        code = await sendCommand(sessionId, text, options, print, {
          env,
          progress,
          signal: context.interrupts(),
        });
      },
    );

  program
    .command('stop')
    .description("Stop the agent's current turn (the app's stop button: the abort RPC)")
    .argument('<sessionId>', 'the session (see `happy-session sessions`)')
    .addOption(serverOption())
    .option('--json', 'print {session, aborted} as one JSON line')
    .action(async (sessionId: string, options: { server?: string; json?: boolean }) => {
      code = await stopCommand(sessionId, options, print, { env });
    });

  program
    .command('answer')
    .description("Answer the agent's permission requests and questions; with no id, list them")
    .argument('<sessionId>', 'the session (see `happy-session sessions`)')
    .argument(
      '[id]',
      'the request (a call id) or the question to answer (see `happy-session answer <sessionId>`)',
    )
    .argument(
      '[answers...]',
      `for a request: ${CHOICES.join(' | ')}, or an option id; for a question: its answer (labels or text, <questionId>=<answer> for a form of several; none on a terminal to be asked)`,
    )
    .addOption(serverOption())
    .option('--all', 'answer every pending request with the choice (batch approval)')
    .addOption(
      new Option('--via <channels>', 'answer on the stream, by RPC, or both').choices([
        'both',
        'stream',
        'rpc',
      ]),
    )
    .option('--cancel', 'dismiss the question instead of answering it')
    .option('--json', 'print JSON: the pending requests, or one line per answer')
    .action(
      async (
        sessionId: string,
        callId: string | undefined,
        answers: string[],
        options: {
          server?: string;
          all?: boolean;
          via?: 'both' | 'stream' | 'rpc';
          json?: boolean;
          cancel?: boolean;
        },
      ) => {
        code = await answerCommand(sessionId, callId, answers, options, print, {
          env,
          terminal: context.terminal(),
        });
      },
    );

  program
    .command('attach')
    .description("Upload files into a session, in a new turn of the agent's, with progress")
    .argument('<sessionId>', 'the session (see `happy-session sessions`)')
    .argument('<files...>', 'paths of photos, videos or other files')
    .addOption(serverOption())
    .option('--text <text>', 'a line of text after the files')
    .option('--json', 'print {session, turn, messages} as one JSON line')
    .action(
      async (
        sessionId: string,
        files: string[],
        options: { server?: string; text?: string; json?: boolean },
      ) => {
        code = await attachCommand(sessionId, files, options, print, {
          env,
          progress,
          signal: context.interrupts(),
        });
      },
    );

  program
    .command('keygen')
    .description('Make a new account key (agent.key) for the local relay; never replaces one')
    .addOption(
      new Option(
        '--server <url>',
        'sign in there now and store the token (default: HAPPY_SERVER_URL if set, else on first use)',
      ),
    )
    .option('--json', 'print {file, server, token} as one JSON line')
    .action(async (options: { server?: string; json?: boolean }) => {
      code = await keygenCommand(options, print, { env });
    });

  program
    .command('login')
    .description('Link this machine to your Happy account by QR code and write agent.key')
    .addOption(serverOption())
    .option('--force', 'replace an existing agent.key')
    .action(async (options: { server?: string; force?: boolean }) => {
      code = await loginCommand(options, print, { env, signal: context.interrupts() });
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok;
      if (json) printError(JSON.stringify(usageJson(usageError ?? error.message)));
      return EXIT.usage;
    }
    if (json) printError(JSON.stringify(failureJson(error)));
    else for (const line of describeFailure(error)) printError(line);
    return failureExit(error);
  }
}
