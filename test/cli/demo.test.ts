import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../src/cli/commands/demo.js';
import type { SessionMessage } from '../../src/protocol/sessionMessage.js';
import { spawnCli } from './helpers.js';

describe('happy-session demo', () => {
  it('runs the example agent over a relay and prints the session id and the decrypted transcript', async () => {
    const lines: string[] = [];
    const code = await demoCommand({}, (l) => lines.push(l));
    const out = lines.join('\n');
    expect(code).toBe(0);
    expect(out).toMatch(/^session [a-z0-9]{20,} on an in-process relay at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(out).toMatch(/^\d+ encrypted records, read back and decrypted on the user's side:$/m);
    expect(out).toContain('user: Find TODOs and review the auth code');
    expect(out).toMatch(/^turn 1 \(completed\)$/m);
    expect(out).toMatch(/^ {2}✓ task: Review auth code$/m);
    expect(out).toMatch(/^ {4}subagent Auth review:$/m);
    expect(out).toMatch(/^ {6}✓ read: Read `src\/auth\/token.ts`$/m);
    expect(out).toMatch(/^ {4}✓ step: Compile$/m);
  });

  it('--json prints one decrypted v2 message per line: the user prompt, then the turn', async () => {
    const lines: string[] = [];
    expect(await demoCommand({ json: true }, (l) => lines.push(l))).toBe(0);
    const messages = lines.map((l) => JSON.parse(l) as SessionMessage);
    expect(messages[0]).toMatchObject({
      role: 'user',
      type: 'text',
      text: 'Find TODOs and review the auth code',
    });
    expect(messages[1]?.type).toBe('turn-start');
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
  });

  it('runs as `happy-session demo` and the process exits 0 by itself (relay and sockets closed)', async () => {
    const demo = spawnCli(['demo']);
    expect(await demo.exited).toBe(0);
    expect(demo.out()).toContain('turn 1 (completed)');
    expect(demo.err()).toBe('');
  });
});
