import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../src/cli/commands/demo.js';

describe('happy-session demo', () => {
  it('runs the example agent and prints the decrypted transcript with nested calls and a subagent', async () => {
    const lines: string[] = [];
    const code = await demoCommand({}, (l) => lines.push(l));
    const out = lines.join('\n');
    expect(code).toBe(0);
    expect(out).toContain('user: Find TODOs and review the auth code');
    expect(out).toMatch(/^turn 1 \(completed\)$/m);
    expect(out).toMatch(/^ {2}✓ task: Review auth code$/m);
    expect(out).toMatch(/^ {4}subagent Auth review:$/m);
    expect(out).toMatch(/^ {6}✓ read: Read `src\/auth\/token.ts`$/m);
    expect(out).toMatch(/^ {4}✓ step: Compile$/m);
  });

  it('--json prints one decrypted v2 message per line', async () => {
    const lines: string[] = [];
    await demoCommand({ json: true }, (l) => lines.push(l));
    const types = lines.map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types[0]).toBe('text');
    expect(types[1]).toBe('turn-start');
    expect(types.at(-1)).toBe('turn-end');
  });
});
