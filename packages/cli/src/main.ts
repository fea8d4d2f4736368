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

const line = (stream: NodeJS.WriteStream) => (text: string) => {
  stream.write(text + '\n');
};

runCli(process.argv.slice(2), {
  print: line(process.stdout),
  printError: line(process.stderr),
  terminal: processTerminal,
  interrupts,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`happy-session: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = EXIT.failure;
  },
);
