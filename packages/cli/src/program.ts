import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { demoCommand } from './commands/demo.js';
import { loginCommand } from './commands/login.js';
import { DEFAULT_PORT, serveCommand } from './commands/serve.js';
import type { ServeOptions } from './commands/serve.js';
import { runCommand } from './commands/run.js';
import { sessionsCommand } from './commands/sessions.js';
import { watchCommand } from './commands/watch.js';
import type { HappyEnv } from 'happy-session/node';
import { EXIT } from './exitCodes.js';
import { describeFailure } from './output.js';
import type { Print } from './output.js';
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
 * `printError` with their hint, never thrown. `serve` resolves once the relay listens; it keeps
 * running until SIGINT or SIGTERM.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  let code: number = EXIT.ok;
  const { print, printError } = context;
  const env = context.env ?? process.env;
  const program = new Command()
    .name('happy-session')
    .description('Write end-to-end encrypted Happy session streams, gate tool calls, run a local relay.')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => print(text.replace(/\n$/, '')),
      writeErr: (text) => printError(text.replace(/\n$/, '')),
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
    .option('--data <dir>', 'keep the database and attachments in this directory (default: in memory)')
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
      await serveCommand(options, print, printLogger(printError, options.verbose ? 'debug' : 'warn'));
      code = EXIT.ok;
    });

  program
    .command('demo')
    .description(
      'Run the example agent against a relay started in process and print the decrypted transcript',
    )
    .option('--json', 'print the decrypted messages as JSON lines')
    .option('--interactive', 'answer the permission prompt from the keyboard (default: allow once)')
    .action(async (options: { json?: boolean; interactive?: boolean }) => {
      code = await demoCommand(
        options,
        print,
        options.interactive
          ? {
              terminal: context.terminal(),
              // Prompts on stderr keep stdout JSON lines only.
              printPrompt: options.json ? printError : print,
              signal: context.interrupts(),
            }
          : {},
      );
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
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    for (const line of describeFailure(error)) printError(line);
    return EXIT.failure;
  }
}
