// Run: npx tsx examples/acp-bridge/main.ts -- <agent command…>
//   e.g. npx tsx examples/acp-bridge/main.ts -- npx tsx examples/acp-bridge/fixtures/echoAgent.ts
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
import { basename } from 'node:path';
import { connect, resolveServerUrl } from 'happy-session/node';
import { runAcpBridge } from './bridge.js';

const argv = process.argv.slice(2);
const separator = argv.indexOf('--');
const [command, ...args] = separator >= 0 ? argv.slice(separator + 1) : argv;
if (!command) {
  console.error('usage: npx tsx examples/acp-bridge/main.ts -- <agent command> [args…]');
  process.exit(2);
}

// Ctrl-C is handled below (the bridge stops the agent, then closes the session), not by connect().
const session = await connect({
  title: `ACP: ${[basename(command), ...args].join(' ')}`,
  shutdownSignals: false,
});
console.log(
  `Bridging \`${[command, ...args].join(' ')}\` to session ${session.id} on ${resolveServerUrl()}.`,
);
console.log(`Watch it and send prompts from the Happy app, or: npx tsx src/cli/main.ts watch ${session.id}`);
console.log('Ctrl-C stops.');

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

const result = await runAcpBridge({
  session,
  command,
  args,
  signal: stop.signal,
  logger: { debug() {}, info: console.log, warn: console.warn, error: console.error },
});
console.log(
  `Stopped (${result.stoppedBy}) after ${result.turns} turn(s); the agent exited with ${result.agentExit.code ?? result.agentExit.signal}.`,
);
// Keep the session in the app's list, so it can be read after this program exits.
await session.close({ archive: false });
