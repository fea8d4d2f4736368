// Run: npx tsx examples/media-bot/index.ts [--v1]
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'happy-session/node';
import { runMediaBot } from './mediaBot.js';

const { values } = parseArgs({ options: { v1: { type: 'boolean' } } });
// Default 'auto': v1 (what today's Happy app renders) on a Happy server, v2 on the embedded relay
// (its viewer); --v1 writes v1 anywhere (docs/v1-format.md).
const session = await connect({ title: 'Media bot example', format: values.v1 ? 'v1' : 'auto' });
console.log(`session ${session.id}`);

const files = await runMediaBot(session, await mkdtemp(join(tmpdir(), 'happy-media-bot-')));
console.log(`sent ${files.photo}, ${files.video} and ${files.pdf}`);

// Keep the session in the app's list, so it can be read after this script exits.
await session.close({ archive: false });
