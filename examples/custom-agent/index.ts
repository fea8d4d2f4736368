// Run: npx tsx examples/custom-agent/index.ts [--v1]
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
// Then, from the app: `run ls -la`, `read package.json`, `hello`, `stop`.
import { parseArgs } from 'node:util';
import { connect } from 'happy-session/node';
import { permissions, runAgent } from './agent.js';

const { values } = parseArgs({ options: { v1: { type: 'boolean' } } });
// Default 'auto': v1 (what today's Happy app renders) on a Happy server, v2 on the embedded relay
// (its viewer); --v1 writes v1 anywhere (docs/v1-format.md).
const session = await connect({
  title: 'Custom agent example',
  permissions,
  format: values.v1 ? 'v1' : 'auto',
});
console.log(`session ${session.id}: send prompts from the app; "stop" ends the agent`);

await runAgent(session, { cwd: process.cwd() });
await session.close({ archive: false });
