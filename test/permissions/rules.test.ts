import { describe, expect, it } from 'vitest';
import { formatRule, parseRule, type ParsedRule } from 'happy-session/permissions';
import { matchCallRule, matchCommandText } from '../../packages/sdk/src/policy/ruleMatch.js';

function rule(text: string): ParsedRule {
  const parsed = parseRule(text);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

function commandRule(text: string): ParsedRule & { type: 'command' } {
  const parsed = rule(text);
  if (parsed.type !== 'command') throw new Error(`${text} is not a command rule`);
  return parsed;
}

describe('parseRule: valid rules', () => {
  it.each<[string, ParsedRule]>([
    ['WebFetch', { type: 'tool', toolName: 'WebFetch' }],
    ['  Edit  ', { type: 'tool', toolName: 'Edit' }],
    ['bash', { type: 'tool', toolName: 'Bash' }],
    ['mcp__db__query', { type: 'tool', toolName: 'mcp__db__query' }],
    ['mcp__db__*', { type: 'mcp-server', prefix: 'db' }],
    ['change_title', { type: 'tool', toolName: 'change_title' }],
    ['Bash(git status)', { type: 'command', toolName: 'Bash', command: 'git status', prefix: false }],
    ['Bash(  git status  )', { type: 'command', toolName: 'Bash', command: 'git status', prefix: false }],
    ['Bash(npm run test:*)', { type: 'command', toolName: 'Bash', command: 'npm run test', prefix: true }],
    ['bash(npm test:*)', { type: 'command', toolName: 'Bash', command: 'npm test', prefix: true }],
    ['Bash(ls *.ts)', { type: 'command', toolName: 'Bash', command: 'ls *.ts', prefix: false }],
    ['Bash(echo $(date))', { type: 'command', toolName: 'Bash', command: 'echo $(date)', prefix: false }],
    ['Read(src/**)', { type: 'path', toolName: 'Read', pattern: 'src/**' }],
    ['Edit(*.md)', { type: 'path', toolName: 'Edit', pattern: '*.md' }],
    ['WebFetch(domain:Example.com)', { type: 'domain', toolName: 'WebFetch', domain: 'example.com' }],
  ])('%s', (text, expected) => {
    expect(parseRule(text)).toEqual({ ok: true, value: expected });
  });

  it('formats back to a canonical text that parses to the same rule', () => {
    for (const text of [
      'bash(npm test:*)',
      'Bash( git status )',
      'mcp__db__*',
      'Read(src/**)',
      'WebFetch(domain:a.io)',
      'exit_plan_mode',
    ]) {
      const parsed = rule(text);
      expect(rule(formatRule(parsed))).toEqual(parsed);
    }
    expect(formatRule(rule('bash( npm test :*)'))).toBe('Bash(npm test:*)');
  });
});

describe('parseRule: invalid rules are a typed configuration error naming the rule', () => {
  it.each([
    ['', 'empty'],
    ['   ', 'blank'],
    ['Bash(', 'unclosed specifier'],
    ['Bash()', 'empty specifier'],
    ['Bash(:*)', 'prefix of nothing'],
    ['Bash (ls)', 'space before the parenthesis'],
    ['Bash)ls(', 'reversed parentheses'],
    ['Edit)', 'stray parenthesis'],
    ['mcp__*', 'wildcard without server'],
    ['Ed*t', 'wildcard in a tool name'],
    ['*', 'bare wildcard'],
    ['mcp__db__*(x)', 'wildcard with specifier'],
    ['Task(explore)', 'specifier on a tool that takes none'],
    ['mcp__db__query(DROP)', 'specifier on an MCP tool'],
    ['Read(../secrets)', 'path escaping with ..'],
    ['Read(a\\b)', 'backslash path'],
    ['WebFetch(example.com)', 'WebFetch without domain:'],
    ['WebFetch(domain:exa mple.com)', 'bad host'],
    ['x'.repeat(10_001), 'too long'],
  ])('%j (%s)', (text) => {
    const parsed = parseRule(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('permissions.invalid_rule');
      expect(parsed.error.message).toMatch(/^Invalid permission rule/);
    }
  });

  it('refuses non-strings', () => {
    expect(parseRule(42).ok).toBe(false);
    expect(parseRule(null).ok).toBe(false);
  });
});

describe('matchCommandText', () => {
  it('Bash(git status) is exact', () => {
    const r = commandRule('Bash(git status)');
    expect(matchCommandText(r, 'git status')).toBe(true);
    expect(matchCommandText(r, 'git status --short')).toBe(false);
    expect(matchCommandText(r, 'git statusx')).toBe(false);
    expect(matchCommandText(r, 'git')).toBe(false);
  });

  it('Bash(npm run test:*) is a word-bounded prefix', () => {
    const r = commandRule('Bash(npm run test:*)');
    expect(matchCommandText(r, 'npm run test')).toBe(true);
    expect(matchCommandText(r, 'npm run test -- -u')).toBe(true);
    expect(matchCommandText(r, 'npm run test\t--watch')).toBe(true);
    expect(matchCommandText(r, 'npm run testx')).toBe(false);
    expect(matchCommandText(r, 'npm run test:unit')).toBe(false);
    expect(matchCommandText(r, 'npm run tes')).toBe(false);
    expect(matchCommandText(r, 'npm  run test')).toBe(false);
  });
});

describe('matchCallRule', () => {
  const root = '/work/app';

  it('a bare tool rule matches every call of that tool, by canonical name', () => {
    expect(matchCallRule(rule('WebFetch'), 'WebFetch', { url: 'https://a.io' })).toBe('match');
    expect(matchCallRule(rule('WebFetch'), 'WebSearch', {})).toBe('no-match');
    expect(matchCallRule(rule('bash'), 'Bash', { command: 'anything' })).toBe('match');
  });

  it('mcp__server__* matches that server only', () => {
    expect(matchCallRule(rule('mcp__db__*'), 'mcp__db__query', {})).toBe('match');
    expect(matchCallRule(rule('mcp__db__*'), 'mcp__dbx__query', {})).toBe('no-match');
    expect(matchCallRule(rule('mcp__db__*'), 'mcp__evil__db__query', {})).toBe('no-match');
  });

  it('Read(src/**) matches files under src of the workspace', () => {
    const r = rule('Read(src/**)');
    expect(matchCallRule(r, 'Read', { file_path: 'src/a/b.ts' }, { workspaceRoot: root })).toBe('match');
    expect(matchCallRule(r, 'Read', { file_path: '/work/app/src/index.ts' }, { workspaceRoot: root })).toBe(
      'match',
    );
    expect(matchCallRule(r, 'Read', { file_path: '/work/app/test/x.ts' }, { workspaceRoot: root })).toBe(
      'no-match',
    );
    expect(matchCallRule(r, 'Read', { file_path: 'srcx/a.ts' }, { workspaceRoot: root })).toBe('no-match');
    expect(matchCallRule(r, 'Edit', { file_path: 'src/a.ts' }, { workspaceRoot: root })).toBe('no-match');
  });

  it('a pattern without a slash matches the file name at any depth', () => {
    const r = rule('Read(.env)');
    expect(matchCallRule(r, 'Read', { file_path: '.env' }, { workspaceRoot: root })).toBe('match');
    expect(matchCallRule(r, 'Read', { file_path: '/work/app/pkg/.env' }, { workspaceRoot: root })).toBe(
      'match',
    );
    expect(matchCallRule(r, 'Read', { file_path: '/work/app/.envrc' }, { workspaceRoot: root })).toBe(
      'no-match',
    );
    expect(
      matchCallRule(rule('Edit(*.md)'), 'Edit', { file_path: 'docs/a.md' }, { workspaceRoot: root }),
    ).toBe('match');
    // Without a root a relative path has no resolved reading: a deny rule matches it as written,
    // an allow rule cannot tell (docs/permissions-policy.md, "How a path is judged").
    const relative = { file_path: 'docs/a.md' };
    expect(matchCallRule(rule('Edit(*.md)'), 'Edit', relative, { purpose: 'deny' })).toBe('match');
    expect(matchCallRule(rule('Edit(*.md)'), 'Edit', relative)).toBe('unknown');
  });

  it('cannot tell for a path that leaves the workspace or has no root to be placed against', () => {
    const r = rule('Read(src/**)');
    expect(matchCallRule(r, 'Read', { file_path: '../other/src/a.ts' }, { workspaceRoot: root })).toBe(
      'unknown',
    );
    expect(matchCallRule(r, 'Read', { file_path: '/etc/passwd' }, { workspaceRoot: root })).toBe('unknown');
    expect(matchCallRule(r, 'Read', { file_path: '/work/app/src/a.ts' })).toBe('unknown');
    expect(matchCallRule(r, 'Read', {})).toBe('unknown');
  });

  it('absolute patterns match absolute paths', () => {
    expect(matchCallRule(rule('Read(/etc/**)'), 'Read', { file_path: '/etc/hosts' })).toBe('match');
    expect(matchCallRule(rule('Read(/etc/*)'), 'Read', { file_path: '/etc/ssh/config' })).toBe('no-match');
  });

  it('WebFetch(domain:x) matches that exact host', () => {
    const r = rule('WebFetch(domain:example.com)');
    expect(matchCallRule(r, 'WebFetch', { url: 'https://EXAMPLE.com/a' })).toBe('match');
    expect(matchCallRule(r, 'WebFetch', { url: 'https://api.example.com/a' })).toBe('no-match');
    expect(matchCallRule(r, 'WebFetch', { url: 'https://example.com.evil.io/' })).toBe('no-match');
    expect(matchCallRule(r, 'WebFetch', { url: 'not a url' })).toBe('unknown');
  });
});

describe('exact-call rules Tool{json} (docs/permissions-policy.md, "Session rules")', () => {
  it('parse to canonical arguments: keys sorted, no whitespace, printable ASCII only', () => {
    expect(rule('mcp__x__y{ "b": 1, "a": {"d": [1, "é"], "c": null} }')).toEqual({
      type: 'call',
      toolName: 'mcp__x__y',
      args: '{"a":{"c":null,"d":[1,"\\u00e9"]},"b":1}',
    });
    const text = 'terminal{"command":"ls\\u200b"}';
    expect(formatRule(rule(text))).toBe(text);
    expect(formatRule(rule(formatRule(rule('Edit{"file_path":"a(b).ts"}'))))).toBe(
      'Edit{"file_path":"a(b).ts"}',
    );
  });

  it.each([
    ['Bash{"command":"ls"}', 'Bash has its own exact form'],
    ['mcp__x__y{', 'not JSON'],
    ['mcp__x__y{"a":1}x', 'trailing text'],
    ['mcp__x__y{"a":1}{"b":2}', 'two objects'],
    ['bad name{"a":1}', 'a space in the tool name'],
    ['{"a":1}', 'no tool name'],
  ])('refuses %s (%s)', (text) => {
    expect(parseRule(text).ok).toBe(false);
  });

  it('matches only equal arguments of the same tool', () => {
    const exact = rule('mcp__x__y{"a":1,"b":"x"}');
    expect(matchCallRule(exact, 'mcp__x__y', { b: 'x', a: 1 })).toBe('match');
    expect(matchCallRule(exact, 'mcp__x__y', { a: 1, b: 'x', c: 0 })).toBe('no-match');
    expect(matchCallRule(exact, 'mcp__x__y', { a: 1, b: 'x ' })).toBe('no-match');
    expect(matchCallRule(exact, 'mcp__x__y', { a: '1', b: 'x' })).toBe('no-match');
    expect(matchCallRule(exact, 'mcp__x__z', { a: 1, b: 'x' })).toBe('no-match');
    expect(matchCallRule(exact, 'mcp__x__y', { a: 1, b: 'x'.repeat(100_000) })).toBe('no-match');
  });
});

describe('MCP wildcards cover one name segment', () => {
  it('mcp__github__* covers mcp__github__create_issue, not a deeper or odd name', () => {
    const wildcard = rule('mcp__github__*');
    expect(matchCallRule(wildcard, 'mcp__github__create_issue', {})).toBe('match');
    // Whose tool a deeper name is cannot be told: an allow does not cover it, a deny still counts.
    expect(matchCallRule(wildcard, 'mcp__github__evil__delete_repo', {})).toBe('unknown');
    expect(matchCallRule(wildcard, 'mcp__github___x', {})).toBe('unknown');
    expect(matchCallRule(wildcard, 'mcp__github__', {})).toBe('unknown');
    expect(parseRule('mcp__github__evil__*').ok).toBe(false);
  });
});
