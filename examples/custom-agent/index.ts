// Run: npx tsx examples/custom-agent/index.ts [--v1] [--no-sandbox]
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
// Then, from the app: `run ls -la`, `read package.json`, `hello`, `stop`.
import { parseArgs } from 'node:util';
import { connect } from 'happy-session/node';
import { sandboxedShell } from 'happy-session/sandbox';
import { permissions, runAgent, sandboxedPermissions } from './agent.js';

const { values } = parseArgs({
  options: { v1: { type: 'boolean' }, sandbox: { type: 'boolean', default: true } },
  allowNegative: true,
});
// Commands run sandboxed by default: confined to this directory, no network, unasked. Where the
// sandbox cannot run, every command asks instead (docs/sandbox.md).
const shell = values.sandbox ? await sandboxedShell({ workspaceRoot: process.cwd() }) : undefined;
if (shell?.unavailable) console.log(`no sandbox here (${shell.unavailable.message}): every command asks`);
// Default 'auto': v1 (what today's Happy app renders) on a Happy server, v2 on the embedded relay
// (its viewer); --v1 writes v1 anywhere (docs/v1-format.md).
const session = await connect({
  title: 'Custom agent example',
  permissions: shell ? sandboxedPermissions(shell) : permissions,
  format: values.v1 ? 'v1' : 'auto',
});
console.log(`session ${session.id}: send prompts from the app; "stop" ends the agent`);

await runAgent(session, { cwd: process.cwd(), ...(shell ? { shell } : {}) });
await session.close({ archive: false });
await shell?.close();
