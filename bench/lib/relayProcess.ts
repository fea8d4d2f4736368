/**
 * The relay as a child process of a benchmark: `node --import tsx relayProcess.ts <dataDir>
 * [limits JSON]` (the benchmark's {@link RelayLimits}, see `relayLimits.ts`). Prints
 * `ready <url>` once listening; SIGTERM closes it cleanly.
 */
import { runRelayServer } from '../../packages/relay/src/index.js';
import type { RelayLimits } from '../../packages/relay/src/index.js';

const [dataDir, limitsJson] = process.argv.slice(2);
if (!dataDir) {
  process.stderr.write('usage: relayProcess.ts <dataDir> [limits JSON]\n');
  process.exit(2);
}
const limits = limitsJson ? (JSON.parse(limitsJson) as RelayLimits) : undefined;
const relay = await runRelayServer({ dataDir, ...(limits ? { limits } : {}) });
process.stdout.write(`ready ${relay.url}\n`);
