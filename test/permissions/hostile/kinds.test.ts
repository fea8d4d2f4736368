import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_MODES, TOOL_KINDS, loadShellParser, type ShellParser } from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * A known tool keeps its kind (docs/permissions-policy.md, "Modes × tool kinds"): a caller's
 * `kind` can make a call stricter, never looser. Issue item 4: `{toolName: 'Bash', kind: 'read'}`
 * was allowed in plan mode.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const RANK = { deny: 0, ask: 1, allow: 2 } as const;

describe('a caller kind never loosens a known tool', () => {
  it("Bash with kind 'read' running rm -rf / is denied in plan and asks in read-only", () => {
    const call = { toolName: 'Bash', kind: 'read', args: { command: 'rm -rf /' } };
    expect(judge(shell, { mode: 'plan' }, call)).toMatchObject({ verdict: 'deny', toolKind: 'execute' });
    expect(judge(shell, { mode: 'read-only' }, call).verdict).toBe('ask');
  });

  it.each(PERMISSION_MODES.map((m) => [m]))(
    'in %s, every explicit kind gives a verdict no looser than the tool alone',
    (mode) => {
      for (const toolName of ['Bash', 'Write', 'Edit', 'WebFetch', 'Read', 'ExitPlanMode']) {
        const args = { command: 'ls', file_path: 'src/a.ts', url: 'https://a.io' };
        const alone = judge(shell, { mode, workspaceRoot: '/work/app' }, { toolName, args }).verdict;
        for (const kind of [...TOOL_KINDS, '_custom', 'Read']) {
          const withKind = judge(
            shell,
            { mode, workspaceRoot: '/work/app' },
            { toolName, kind, args },
          ).verdict;
          expect(RANK[withKind], `${toolName} kind ${kind}`).toBeLessThanOrEqual(RANK[alone]);
        }
      }
    },
  );

  it('a stricter explicit kind is honoured: Read with kind execute is not allowed by plan', () => {
    // Reads are allowed by plan inside a workspace root only (docs/permissions-policy.md, "Reads stay in the workspace").
    const setup = { mode: 'plan' as const, workspaceRoot: '/work/app' };
    expect(judge(shell, setup, { toolName: 'Read', args: { file_path: 'a' } }).verdict).toBe('allow');
    expect(judge(shell, setup, { toolName: 'Read', kind: 'execute', args: { file_path: 'a' } }).verdict).toBe(
      'deny',
    );
  });

  it("an unknown tool still takes the adapter's kind (positive control)", () => {
    expect(
      judge(shell, { mode: 'plan' }, { toolName: 'mcp__fs__read_file', kind: 'read', args: {} }).verdict,
    ).toBe('allow');
    expect(judge(shell, { mode: 'plan' }, { toolName: 'mcp__fs__read_file', args: {} }).verdict).toBe('deny');
  });
});
