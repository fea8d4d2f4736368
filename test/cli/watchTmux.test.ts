import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionAgent, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';
import { TmuxPane } from './tmuxPane.js';

/**
 * `watch` in a real terminal: tmux gives it a pty (raw mode, a size, escape sequences), the test
 * types with `send-keys` and reads the screen with `capture-pane`. Needs the tmux package.
 */
const pane = new TmuxPane('watch');

let env: RelayHome;
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  pane.kill();
  await env.close();
});

describe('happy-session watch in a terminal (tmux)', () => {
  it('draws the turn and the prompt, answers with a number key, and quits with q and exit code 0', async () => {
    const agent = await permissionAgent(env.relay, env.credentials);
    pane.start(env.home, ['watch', agent.session.id, '--server', env.relay.url], { width: 120, height: 40 });

    const prompt = await pane.shows('Permission requested: bash');
    expect(prompt).toContain(`happy-session watch · Clean the build · ${agent.session.id}`);
    expect(prompt).toMatch(/^turn 1 \(open\)$/m);
    expect(prompt).toContain('  ? bash: Run `rm -rf build` (waiting for permission)');
    expect(prompt).toContain('  1) Allow once   2) Allow for session   3) Deny   4) Always deny');

    pane.keys('2');
    expect(await agent.response).toMatchObject({ type: 'permission-response', optionId: 'allow-session' });
    expect(await agent.rpc).toEqual({
      callId: agent.call.callId,
      optionId: 'allow-session',
      requestId: agent.requestId,
    });
    const answered = await pane.shows('permission RPC delivered');
    expect(answered).toContain('→ Allow for session (allow-always)');
    expect(answered).not.toContain('Permission requested');

    agent.call.end();
    agent.turn.end('completed');
    await pane.shows('turn 1 (completed)');

    pane.keys('q');
    await pane.shows('exit=0');
    await agent.session.close();
  });
});
