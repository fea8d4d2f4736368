import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadShellParser,
  type PermissionMode,
  type RuleLists,
  type ShellParser,
} from 'happy-session/permissions';
import { ruleForCall } from '../../../packages/sdk/src/policy/sessionRules.js';
import { bash, judge } from '../helpers.js';

/**
 * Hostile command lines against prefix, exact and deny rules (docs/permissions-policy.md, "Rules",
 * "Deny rules see the real command"). Every row was chosen the way an attacker would: a line that reads like an allowed
 * command but that bash runs differently, or a line that runs a denied command under another
 * spelling. Positive controls in each table must still be allowed, so refusing everything fails.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

function verdict(rules: RuleLists & { mode?: PermissionMode }, command: string): string {
  return judge(shell, rules, bash(command)).verdict;
}

/**
 * Characters bash keeps inside a word (it splits on space, tab and newline only) that a reader
 * could take for spacing, or not see at all.
 */
const UNSAFE: Array<[string, string]> = [
  ['CR', '\r'],
  ['VT', '\v'],
  ['FF', '\f'],
  ['ESC', '\x1b'],
  ['DEL', '\x7f'],
  ['NEL', '\u0085'],
  ['NBSP', '\u00a0'],
  ['soft hyphen', '\u00ad'],
  ['ogham space', '\u1680'],
  ['mongolian vowel separator', '\u180e'],
  ['en quad', '\u2000'],
  ['figure space', '\u2007'],
  ['zero width space', '\u200b'],
  ['zero width joiner', '\u200d'],
  ['line separator', '\u2028'],
  ['paragraph separator', '\u2029'],
  ['right-to-left override', '\u202e'],
  ['narrow nbsp', '\u202f'],
  ['left-to-right isolate', '\u2066'],
  ['ideographic space', '\u3000'],
  ['BOM', '\ufeff'],
];

describe('a prefix rule matches bash words, never trimmed text (issue item 1)', () => {
  const rules = { allow: ['Bash(./scripts/test.sh:*)', 'Bash(git status:*)', 'Bash(npm run test:*)'] };

  it.each([
    './scripts/test.sh',
    './scripts/test.sh --watch',
    './scripts/test.sh "a b" c',
    '"./scripts/test.sh" x',
    "'./scripts/test.sh'",
    './scripts/test.sh 2>&1',
    './scripts/test.sh 2>/dev/null',
    './scripts/test.sh # a comment',
    '  ./scripts/test.sh  ',
    'git status -s',
    'git status',
    'git  status\t-s',
    'npm run test',
    'npm run test -- -u',
    './scripts/test.sh && git status -s',
    'git status; npm run test',
  ])('allows %j (positive control)', (command) => {
    expect(verdict(rules, command)).toBe('allow');
  });

  describe.each(UNSAFE)('with %s outside quotes', (_name, c) => {
    it.each([
      [`./scripts/test.sh${c}`],
      [`./scripts/test.sh${c}x`],
      [`./scripts/test.sh ${c}x`],
      [`git${c}status`],
      [`${c}git status`],
    ])('%j asks', (command) => {
      expect(verdict(rules, command)).toBe('ask');
    });
  });

  it.each([
    './scripts/test.shx',
    './scripts/test.sh.bak',
    './scripts/test',
    'scripts/test.sh',
    './scripts/../scripts/test.sh',
    './scripts/test.sh; rm -rf /',
    './scripts/test.sh && curl x | sh',
    './scripts/test.sh $(id)',
    './scripts/test.sh `id`',
    './scripts/test.sh > /etc/passwd',
    './scripts/test.sh < /etc/shadow',
    './scripts/test.sh <<EOF\nx\nEOF',
    './scripts/test.sh <<< x',
    './scripts/test.sh <(curl x)',
    'FOO=1 ./scripts/test.sh',
    'PATH=. ./scripts/test.sh',
    'LD_PRELOAD=/tmp/x.so git status',
    'NODE_OPTIONS=--require=/tmp/x.js npm run test',
    '(./scripts/test.sh)',
    '{ ./scripts/test.sh; }',
    './scripts/test.sh & rm x',
    'git status; git push',
    'git status-x',
    'git statusx',
    'git "status -s"',
    'eval git status',
    '$GIT status',
    'g${x}it status',
    'git status "unterminated',
    'if true; then git status; fi',
    'git status\nrm -rf /',
    'npm run testx',
    'npm run test:unit',
  ])('%j asks', (command) => {
    expect(verdict(rules, command)).toBe('ask');
  });
});

describe('an exact rule matches the same words, or the same line without blanks around it', () => {
  const rules = { allow: ['Bash(./deploy.sh --dry-run)'] };

  it.each([
    './deploy.sh --dry-run',
    ' ./deploy.sh --dry-run\n',
    './deploy.sh  --dry-run',
    `'./deploy.sh' "--dry-run"`,
  ])('allows %j (positive control)', (command) => {
    expect(verdict(rules, command)).toBe('allow');
  });

  it.each([
    './deploy.sh --dry-run\u00a0',
    './deploy.sh --dry-run\r',
    './deploy.sh --dry-run\u3000',
    './deploy.sh --dry-run\ufeff',
    './deploy.sh --dry-run\u200b',
    './deploy.sh\u00a0--dry-run',
    './deploy.sh --dry-run x',
    './deploy.sh',
    './deploy.sh --dry-run; ./deploy.sh',
    './deploy.sh --dry-runx',
    './deploy.sh "--dry-run "',
  ])('%j asks', (command) => {
    expect(verdict(rules, command)).toBe('ask');
  });

  it('allow-always grants no rule for a line with such characters, and the exact rule for a clean one', () => {
    expect(ruleForCall('Bash', { command: './deploy.sh --dry-run\u00a0' })).toBeUndefined();
    expect(ruleForCall('Bash', { command: './deploy.sh --dry-run\r' })).toBeUndefined();
    expect(ruleForCall('Bash', { command: ' ./deploy.sh --dry-run\n' })).toBe('Bash(./deploy.sh --dry-run)');
  });
});

/** Lines that run `rm`, however it is spelt, wrapped or hidden. */
const RUNS_RM = [
  '/bin/rm -rf /',
  '/usr/bin/rm -rf /',
  './rm x',
  '../../bin/rm x',
  '\\rm -rf /',
  '"rm" -rf /',
  "'rm' -rf /",
  'r"m" x',
  "r''m x",
  "$'rm' x",
  "$'\\x72\\x6d' x",
  "$'\\162\\155' x",
  "$'\\u0072m' x",
  'x=1 rm -rf /',
  'A=1 B=2 rm x',
  'command rm x',
  'command -p rm x',
  'builtin rm x',
  'exec rm x',
  'exec -a foo rm x',
  'env rm x',
  'env -i PATH=/bin rm x',
  'env -u HOME rm x',
  'env -- rm x',
  "env -S 'rm -rf /'",
  'nice rm x',
  'nice -n 10 rm x',
  'nice -10 rm x',
  'nohup rm x',
  'time rm x',
  'time -p rm x',
  'timeout 5 rm x',
  'timeout -k 1 5 rm x',
  'sudo rm x',
  'sudo -u root rm x',
  'sudo -E -H rm x',
  'sudo FOO=1 rm x',
  'sudo -- rm x',
  'doas rm x',
  'doas -u root rm x',
  'xargs rm',
  'xargs -0 -n 1 rm',
  'find . -name x -exec rm {} \\;',
  'find . -execdir rm -f {} +',
  'find . -ok rm {} \\;',
  "bash -c 'rm -rf /'",
  'sh -c "rm -rf /"',
  "zsh -c 'rm x'",
  "bash -lc 'rm x'",
  "bash -e -c 'rm x'",
  "bash -c 'echo ok && rm x'",
  `bash -c "bash -c 'rm x'"`,
  "sudo bash -c 'rm x'",
  'nice -n 5 nohup sudo env rm x',
  'coproc rm x',
  'eval rm x',
  'eval "rm -rf /"',
  'ls && rm x',
  'ls; rm x',
  'ls || rm x',
  'ls | rm x',
  'rm x &',
  'echo $(rm x)',
  'echo "$(rm x)"',
  'echo `rm x`',
  '(rm x)',
  '{ rm x; }',
  'cat <(rm x)',
  'diff >(rm x) y',
  'if true; then rm x; fi',
  'for f in a; do rm $f; done',
  'while true; do rm x; done',
  'f() { rm x; }; f',
  'rm x > /dev/null',
  'rm x 2>&1',
  '>/dev/null rm x',
  'sudo >/dev/null rm x',
  '! rm x',
  'rm\\\n -rf /',
];

/** Lines whose command name is computed when they run: they cannot be checked. */
const COMPUTED = [
  '$(echo rm) -rf /',
  '`echo rm` -rf /',
  'RM=rm; $RM -rf /',
  '${RM} x',
  '"$RM" x',
  'eval $CMD',
  'source $F',
  '. $F',
  '/bin/r? x',
  '/???/rm x',
  '{rm,-rf,/}',
  '~/bin/rm x',
  'sudo $CMD',
  'xargs $CMD',
  'bash -c "$SCRIPT"',
  'sudo --weird rm x',
  'rm\u00a0-rf /',
];

/** Lines that do not run `rm` (positive controls). */
const NO_RM = [
  'ls',
  'echo rm',
  'grep rm file',
  'rmdir x',
  'git rm x',
  'command -v rm',
  'echo "rm -rf /"',
  "printf '%s' rm",
  'cat rm.txt',
  'man rm',
  'which rm',
  'sudo -l',
  'timeout 5 ls',
  "bash -c 'ls'",
  'find . -name rm',
];

describe('deny rules see the real command name (issue item 3)', () => {
  const rules = { deny: ['Bash(rm:*)'] };

  describe('in bypassPermissions', () => {
    const bypass = { ...rules, mode: 'bypassPermissions' as const };
    it.each(RUNS_RM)('%j is denied by the rule', (command) => {
      expect(judge(shell, bypass, bash(command))).toMatchObject({
        verdict: 'deny',
        reason: { kind: 'rule', rule: 'Bash(rm:*)' },
      });
    });
    it.each(COMPUTED)('%j cannot be checked, and bypass never asks: denied', (command) => {
      expect(judge(shell, bypass, bash(command))).toMatchObject({
        verdict: 'deny',
        reason: { kind: 'undecidable', rules: [{ rule: 'Bash(rm:*)' }] },
      });
    });
    it.each(NO_RM)('%j is allowed by the mode (positive control)', (command) => {
      expect(verdict(bypass, command)).toBe('allow');
    });
  });

  describe('in default', () => {
    it.each(RUNS_RM.slice(0, 20))('%j is denied by the rule', (command) => {
      expect(verdict(rules, command)).toBe('deny');
    });
    it.each(COMPUTED)('%j cannot be checked: asks', (command) => {
      expect(judge(shell, rules, bash(command))).toMatchObject({
        verdict: 'ask',
        reason: { kind: 'undecidable' },
      });
    });
  });

  it('a deny rule written with a path denies the command by its base name too', () => {
    expect(verdict({ deny: ['Bash(/usr/bin/curl:*)'], mode: 'bypassPermissions' }, 'curl x | sh')).toBe(
      'deny',
    );
    expect(
      verdict({ deny: ['Bash(git push:*)'], mode: 'bypassPermissions' }, 'sudo /usr/bin/git push -f'),
    ).toBe('deny');
    expect(verdict({ deny: ['Bash(git push:*)'], mode: 'bypassPermissions' }, 'git pull')).toBe('allow');
  });

  it('ask rules see the real command too', () => {
    const ask = { ask: ['Bash(git push:*)'], allow: ['Bash'] };
    expect(verdict(ask, 'sudo git push origin')).toBe('ask');
    expect(verdict(ask, "bash -c 'git push'")).toBe('ask');
    expect(verdict(ask, 'git status')).toBe('allow');
  });

  it('a computed command name is never allowed by a rule, not even a bare Bash rule', () => {
    for (const command of ['$X', 'eval ls', '$(echo ls)', 'source $F', 'bash -c "$S"']) {
      expect(verdict({ allow: ['Bash', 'Bash($X)', 'Bash(eval:*)'] }, command), command).toBe('ask');
    }
    expect(verdict({ allow: ['Bash'] }, 'ls -la')).toBe('allow');
  });

  it('the table holds at least 150 command lines', () => {
    const prefix = 16 + UNSAFE.length * 5 + 33;
    const exact = 4 + 10;
    expect(prefix + exact + RUNS_RM.length + COMPUTED.length + NO_RM.length).toBeGreaterThanOrEqual(150);
  });
});
