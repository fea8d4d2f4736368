/**
 * The relay as a child process of a benchmark: `node --import tsx relayProcess.ts <dataDir>`.
 * Prints `ready <url>` once listening; SIGTERM closes it cleanly.
 */
import { runRelayServer } from '../../packages/relay/src/index.js';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: relayProcess.ts <dataDir>\n');
  process.exit(2);
}
const relay = await runRelayServer({ dataDir });
process.stdout.write(`ready ${relay.url}\n`);
