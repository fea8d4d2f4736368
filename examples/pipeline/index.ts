// Run: npx tsx examples/pipeline/index.ts [--fail-at <step>] [--v1]
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'happy-session/node';
import { STEPS, runPipeline } from './pipeline.js';
import type { StepName } from './pipeline.js';

const { values } = parseArgs({ options: { 'fail-at': { type: 'string' }, v1: { type: 'boolean' } } });
const failAt = values['fail-at'] as StepName | undefined;
if (failAt !== undefined && !STEPS.includes(failAt)) {
  console.error(`--fail-at takes one of: ${STEPS.join(', ')}`);
  process.exit(2);
}

// Default 'auto': v1 (what today's Happy app renders) on a Happy server, v2 on the embedded relay
// (its viewer); --v1 writes v1 anywhere (docs/v1-format.md).
const session = await connect({ title: 'Pipeline example', format: values.v1 ? 'v1' : 'auto' });
console.log(`session ${session.id}`);

const workDir = await mkdtemp(join(tmpdir(), 'happy-pipeline-'));
const result = await runPipeline(session, { workDir, failAt });
console.log(`turn ${result.status}${result.artifact ? `, wrote ${result.artifact}` : ''}`);
if (result.status !== 'completed') process.exitCode = 1;

// Keep the session in the app's list, so it can be read after this script exits.
await session.close({ archive: false });
