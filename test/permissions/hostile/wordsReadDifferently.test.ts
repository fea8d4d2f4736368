import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 23, class 2: words the policy reads differently from bash (docs/permissions-policy.md,
 * "The grammar a line must be in to be allowed" and "Bash's own words"). A NUL ends an ANSI-C
 * string for bash (`rm$'\0x'` is `rm`); words after `coproc`, `time`, `!` are reserved words,
 * not commands named `{` or `do`. Such a line is never allowed by a prefix rule, the bare rule or
 * a mode, and where a deny rule is in force and nobody would be asked, it is denied. Deny rules
 * also see through them where the policy can read them (`rm$'\0x'` is denied as `rm`).
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const DENY = { deny: ['Bash(rm:*)'] };

/** Lines that run `rm` under a spelling read differently, or behind a reserved word or prefix. */
const HIDDEN_RM = [
  "rm$'\\0x' -f F",
  "rm$'\\c@x' -f F",
  "rm$'\\u0000x' -f F",
  "rm$'\\x00x' -f F",
  "rm$'\\U00000000x' -f F",
  "rm$'\\00' -f F",
  "env rm$'\\0x' -f F",
  'bash -c "rm$\'\\\\0x\' -f F"',
  'coproc X { rm -f F; }',
  'coproc rm -f F',
  'time { rm -f F; }',
  'time -p { rm -f F; }',
  'time rm -f F',
  '! { rm -f F; }',
  '! rm -f F',
  'if true; then rm -f F; fi',
  'while false; do :; done; rm -f F',
  'for x in a; do rm -f F; done',
  'case x in x) rm -f F;; esac',
  '{ rm -f F; }',
  'function f { rm -f F; }; f',
  '[[ -n x ]] && rm -f F',
];

describe('class 2: words the policy reads differently', () => {
  it.each(HIDDEN_RM)('%j is denied in bypassPermissions under Bash(rm:*)', (command) => {
    expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, bash(command)).verdict).toBe('deny');
  });

  it.each(HIDDEN_RM)('%j is denied in dontAsk under Bash(rm:*)', (command) => {
    expect(judge(shell, { ...DENY, mode: 'dontAsk', allow: ['Bash'] }, bash(command)).verdict).toBe('deny');
  });

  it.each(HIDDEN_RM)(
    '%j never runs in default mode, whatever allow rule: it is denied or asked',
    (command) => {
      const verdict = judge(
        shell,
        { ...DENY, allow: ['Bash', 'Bash(env:*)', 'Bash(bash:*)', 'Bash(coproc:*)', 'Bash(time:*)'] },
        bash(command),
      ).verdict;
      expect(['deny', 'ask']).toContain(verdict);
    },
  );

  it("deny rules read an ANSI-C NUL as bash does: rm$'\\0x' is rm", () => {
    for (const command of ["rm$'\\0x' -f F", "rm$'\\c@x' -f F", "rm$'\\u0000x' -f F"]) {
      expect(judge(shell, DENY, bash(command)).verdict, command).toBe('deny');
    }
  });

  it.each([
    ["echo $'a\\tb'", 'Bash(echo:*)'],
    ["echo $'it\\'s'", 'Bash(echo:*)'],
    ['echo time do done', 'Bash(echo:*)'],
    ['git status -s', 'Bash(git status:*)'],
    ['\'git\' "status" -s', 'Bash(git status:*)'],
    ['\\git status', 'Bash(git status:*)'],
    ['g\\it status', 'Bash(git status:*)'],
    ['ls -la 2>/dev/null', 'Bash(ls:*)'],
    ['ls 2>&1 >/dev/null', 'Bash(ls:*)'],
    ['ls 3<&- 4>&-', 'Bash(ls:*)'],
    ['ls </dev/null', 'Bash(ls:*)'],
  ])('%j is allowed by %s (positive control)', (command, rule) => {
    expect(judge(shell, { ...DENY, allow: [rule] }, bash(command)).verdict).toBe('allow');
  });

  it('a prefix rule is matched on the words bash reads, not on what the line looks like', () => {
    // `git\tstatus` written with an escaped tab is one word for bash: the command `git<TAB>status`.
    expect(judge(shell, { allow: ['Bash(git status:*)'] }, bash('git\\\tstatus')).verdict).toBe('ask');
    expect(judge(shell, { allow: ['Bash(git status:*)'] }, bash("git 'status -s'")).verdict).toBe('ask');
  });
});
