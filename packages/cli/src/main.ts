#!/usr/bin/env node
import { EXIT } from './exitCodes.js';
import { runCli } from './program.js';
import { processTerminal } from './terminal.js';

const controller = new AbortController();
let listening = false;

/** First Ctrl-C asks the command to stop; a second one ends the process at once. */
function interrupts(): AbortSignal {
  if (!listening) {
    listening = true;
    process.on('SIGINT', () => {
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      controller.abort();
    });
  }
  return controller.signal;
}

/**
 * A reader that went away (`happy-session sessions | head -3`) is no failure of the command: the
 * first write to the closed pipe ends the process quietly with 0 (docs/cli.md, "Exit codes").
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    throw error;
  });
}

const line = (stream: NodeJS.WriteStream) => (text: string) => {
  stream.write(text + '\n');
};

runCli(process.argv.slice(2), {
  print: line(process.stdout),
  printError: line(process.stderr),
  terminal: processTerminal,
  interrupts,
  progressStream: process.stderr,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`happy-session: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = EXIT.failure;
  },
);
