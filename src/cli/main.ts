#!/usr/bin/env node
import { Command } from 'commander';
import { demoCommand } from './commands/demo.js';

const print = (line: string): void => {
  process.stdout.write(line + '\n');
};

const program = new Command()
  .name('happy-session')
  .description('Write end-to-end encrypted Happy session streams, gate tool calls, run a local relay.');

program
  .command('demo')
  .description('Run the example agent and print the decrypted transcript')
  .option('--json', 'print the decrypted messages as JSON lines')
  .action(async (options: { json?: boolean }) => {
    process.exitCode = await demoCommand(options, print);
  });

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`happy-session: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
