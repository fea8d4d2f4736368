import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';
import { TmuxPane, quote } from './tmuxPane.js';

/**
 * `attach` in a real terminal: tmux gives it a pty, so stderr is a TTY and cli-progress draws a
 * bar per file in place; the test reads the screen with `capture-pane`. Needs the tmux package.
 */
const pane = new TmuxPane('attach');

let env: RelayHome;
let agent: Session;
beforeEach(async () => {
  env = await relayHome();
  agent = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Attach here' });
});
afterEach(async () => {
  pane.kill();
  await agent.close();
  await env.close();
});

describe('happy-session attach in a terminal (tmux)', () => {
  it('draws a progress bar per file that ends full, with what each file became', async () => {
    const log = join(env.home, 'build.log');
    writeFileSync(log, 'step ok\n'.repeat(40_000)); // 320 000 bytes: several upload chunks
    const notes = join(env.home, 'notes.md');
    writeFileSync(notes, '# Notes\n');
    pane.start(env.home, ['attach', agent.id, quote(log), quote(notes), '--server', env.relay.url], {
      width: 120,
      height: 20,
    });

    const done = await pane.shows('exit=0', 600);
    // One bar per file, drawn with the bar characters and ending full.
    expect(done).toMatch(/^build\.log {2}done {5}█{30} text\/plain, 312\.5 KiB$/m);
    expect(done).toMatch(/^notes\.md {2}done {5}█{30} text\/markdown, 8 B$/m);
    expect(done).toContain('Attached to Attach here in a new turn:');
    // Bars are redrawn in place, never printed as one line per update.
    expect(done.match(/build\.log/g)).toHaveLength(1);
    const stored = await agent.reader.messages();
    expect(stored.filter((m) => m.type === 'file').map((m) => m.type === 'file' && m.name)).toEqual([
      'build.log',
      'notes.md',
    ]);
  });
});
