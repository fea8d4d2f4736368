// Run: npx tsx examples/pipeline/index.ts [--fail-at <step>]
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from '../../src/transport/node.js';
import { runPipeline } from './pipeline.js';
import type { StepName } from './pipeline.js';

const { values } = parseArgs({ options: { 'fail-at': { type: 'string' } } });

const session = await connect({ title: 'Pipeline example' });
console.log(`session ${session.id}`);

const workDir = await mkdtemp(join(tmpdir(), 'happy-pipeline-'));
const result = await runPipeline(session, {
  workDir,
  ...(values['fail-at'] ? { failAt: values['fail-at'] as StepName } : {}),
});
console.log(`turn ${result.status}${result.artifact ? `, wrote ${result.artifact}` : ''}`);

// Keep the session in the app's list, so it can be read after this script exits.
await session.close({ archive: false });
