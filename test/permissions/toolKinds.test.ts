import { describe, expect, it } from 'vitest';
import { canonicalToolName, classifyTool } from 'happy-session/permissions';

describe('classifyTool', () => {
  it.each([
    ['Read', 'read'],
    ['Grep', 'search'],
    ['Glob', 'search'],
    ['Edit', 'edit'],
    ['MultiEdit', 'edit'],
    ['Write', 'edit'],
    ['NotebookEdit', 'edit'],
    ['Bash', 'execute'],
    ['bash', 'execute'],
    ['CodexBash', 'execute'],
    ['CodexPatch', 'edit'],
    ['WebFetch', 'fetch'],
    ['ExitPlanMode', 'switch_mode'],
    ['exit_plan_mode', 'switch_mode'],
  ])('%s is %s', (name, kind) => {
    expect(classifyTool(name)).toBe(kind);
  });

  it.each(['mcp__db__drop_table', 'mcp__fs__read_file', 'deploy', 'read', 'READ', 'BashTool', 'Edit2'])(
    'an unknown tool name (%s) is other, the most dangerous kind',
    (name) => {
      expect(classifyTool(name)).toBe('other');
    },
  );

  it('uses a known explicit kind from the adapter', () => {
    expect(classifyTool('mcp__fs__read_file', 'read')).toBe('read');
    expect(classifyTool('Bash', 'execute')).toBe('execute');
  });

  it('fails closed on an unknown explicit kind instead of guessing from the name', () => {
    expect(classifyTool('Read', '_custom_kind')).toBe('other');
    expect(classifyTool('Read', 'Read')).toBe('other');
  });
});

describe('canonicalToolName', () => {
  it('maps the aliases of the table and nothing else', () => {
    expect(canonicalToolName('bash')).toBe('Bash');
    expect(canonicalToolName('exit_plan_mode')).toBe('ExitPlanMode');
    expect(canonicalToolName('BASH')).toBe('BASH');
    expect(canonicalToolName('toString')).toBe('toString');
  });
});
