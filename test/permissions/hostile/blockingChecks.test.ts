import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type RuleLists, type ShellParser } from 'happy-session/permissions';
import { ruleForCall } from '../../../packages/sdk/src/policy/sessionRules.js';
import { bash, judge } from '../helpers.js';

/**
 * Issue 23, class 8: checks that block the process (docs/permissions-policy.md, "Every check is
 * linear and bounded"). Every line here is judged, and the verdict is what is asserted: long lines
 * ask (or are denied where a deny rule is in force and nobody would be asked). How long the
 * judging takes is measured by `bench/policyLines.bench.ts`, never here.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const FIVE: RuleLists = {
  allow: ['Bash(git status:*)', 'Bash(ls:*)', 'Bash(echo:*)', 'Bash(npm test)', 'Bash(./scripts/test.sh:*)'],
};
const TWO_DENY: RuleLists = { deny: ['Bash(rm:*)', 'Bash(curl:*)'] };

const LONG: Array<[string, string]> = [
  ['git status + 64,000 spaces + x', `git status${' '.repeat(64_000)}x`],
  ['git status + 128,000 spaces', `git status${' '.repeat(128_000)}`],
  ['a word of 60,000 [', `ls ${'['.repeat(60_000)}`],
  ['60,000 quotes', `git status ${'"'.repeat(60_000)}`],
  ['30,000 $(', `echo ${'$('.repeat(30_000)}`],
  ['30,000 ${', `echo ${'${'.repeat(30_000)}`],
  ['60,000 backslashes', `echo ${'\\'.repeat(60_000)}`],
  ['60,000 NULs', `git status ${'\0'.repeat(60_000)}`],
  ['60,000 Unicode spaces', `git status ${'\u3000'.repeat(60_000)}`],
  ['a 1 MiB word', `git status ${'a'.repeat(1024 * 1024)}`],
  ['30,000 commands', 'a;'.repeat(30_000)],
  ['a 1,000-character line of pipes ending in one', `ls|${'a|'.repeat(500)}`],
];

describe('class 8: checks that block the process', () => {
  it.each(LONG)('%s asks under five allow rules', (_name, command) => {
    expect(judge(shell, FIVE, bash(command)).verdict).toBe('ask');
  });

  it.each(LONG)('%s is denied under two deny rules in bypassPermissions', (_name, command) => {
    expect(judge(shell, { ...TWO_DENY, mode: 'bypassPermissions' }, bash(command)).verdict).toBe('deny');
  });

  it.each(LONG)('%s asks under two deny rules in default mode', (_name, command) => {
    expect(judge(shell, TWO_DENY, bash(command)).verdict).toBe('ask');
  });

  it('allow-always grants no rule for a line longer than the grammar reads, and the exact rule for a long run of inner blanks', () => {
    expect(ruleForCall('Bash', { command: `git status${' '.repeat(64_000)}x` })).toBeUndefined();
    const blanks = `git status${' '.repeat(8_000)}x`;
    expect(ruleForCall('Bash', { command: blanks })).toBe(`Bash(${blanks})`);
  });

  it.each([
    ['git status with 8,000 spaces before -s', `git status${' '.repeat(8_000)}-s`, 'Bash(git status:*)'],
    ['echo of a 15,000-character word', `echo ${'a'.repeat(15_000)}`, 'Bash(echo:*)'],
    ['100 commands', 'ls;'.repeat(100), 'Bash(ls:*)'],
  ])('%s is still allowed (positive control)', (_name, command, rule) => {
    expect(judge(shell, { allow: [rule] }, bash(command)).verdict).toBe('allow');
    expect(judge(shell, { ...TWO_DENY, mode: 'bypassPermissions' }, bash(command)).verdict).toBe('allow');
  });
});
