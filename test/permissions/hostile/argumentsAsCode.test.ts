import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type RuleLists, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 23, class 1: arguments that bash turns into code (docs/permissions-policy.md, "The grammar
 * a line must be in to be allowed"). A prefix rule allows a command's words, never code hidden in
 * them: parameter operators that evaluate (`${_@P}` prompt-expands, `${!x}` is indirect,
 * `${PWD:_}` evaluates arithmetic), substitutions, and builtins that evaluate an argument
 * (`printf -v`, `test -v`, `read`, `declare` with a subscript). The positive controls beside them
 * must still be allowed.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const RULES: RuleLists = {
  allow: [
    'Bash(git status:*)',
    'Bash(echo:*)',
    'Bash(printf:*)',
    'Bash(test:*)',
    'Bash(read:*)',
    'Bash(declare:*)',
    'Bash(ls:*)',
    'Bash(cd:*)',
    'Bash(command:*)',
  ],
};

const CODE = [
  "git status -- '$(touch M)'; git status -- ${_@P}",
  'git status -- ${_@P}',
  'git status ${x@P}',
  'git status "${x@P}"',
  'git status ${!_}',
  'git status ${!x}',
  'git status ${!x*}',
  'git status ${PWD:_}',
  'git status ${PWD:0:_}',
  'git status "${PWD:0:x}"',
  'git status ${x:-$(id)}',
  'git status ${x:=y}',
  'git status ${x/a/b}',
  'git status ${x[$(id)]}',
  'git status ${#x}',
  'git status ${x^^}',
  'git status $((1+x))',
  'git status $[x]',
  'git status $(id)',
  'git status "$(id)"',
  'git status `id`',
  'git status "`id`"',
  'git status <(id)',
  'git status >(id)',
  'git status $1',
  'git status $@',
  'git status "$*"',
  'git status $$',
  'git status $?',
  'git status $_',
  'git status $-',
  'git status $#',
  'git status $!',
  'git status $0',
  'echo $"translated"',
  "printf -v 'a[$(touch M)]' x",
  'printf -v x y',
  'printf $FMT x',
  "test -v 'a[$(touch M)]'",
  'test $X',
  'test -n "$X" -a x',
  'test "$X" "a[$(touch M)]"',
  "read 'a[$(touch M)]'",
  "declare 'a[$(touch M)]=1'",
  'command eval id',
  'command printf -v x y',
  'ls $(id)',
  'cd $(id) && ls',
  'echo ~root',
  'echo ~',
  'echo {a,b}',
  'echo *',
  'echo ?',
  'echo [a]',
];

const CONTROLS = [
  'git status -s',
  'git status -- x',
  'git status $HOME',
  'git status "$HOME"',
  'git status ${HOME}',
  'git status "${HOME}/x"',
  'echo $HOME',
  "echo '$(touch M)' '${_@P}'",
  'echo "a b" c',
  'echo \\$HOME',
  "echo $'a\\tb'",
  "printf '%s\\n' x",
  'printf "[%s]" x',
  'test -f x',
  'ls -la',
  'cd src && ls',
  'command -v git',
];

describe('class 1: arguments that bash turns into code', () => {
  it.each(CODE)('%j asks', (command) => {
    expect(judge(shell, RULES, bash(command)).verdict).toBe('ask');
  });

  it.each(CODE)(
    '%j is denied in bypassPermissions under a deny rule, since nothing can check it',
    (command) => {
      expect(judge(shell, { deny: ['Bash(curl:*)'], mode: 'bypassPermissions' }, bash(command)).verdict).toBe(
        'deny',
      );
    },
  );

  it.each(CONTROLS)('%j is allowed (positive control)', (command) => {
    expect(judge(shell, RULES, bash(command)).verdict).toBe('allow');
  });

  it.each(CONTROLS)('%j runs in bypassPermissions under a deny rule (positive control)', (command) => {
    expect(judge(shell, { deny: ['Bash(curl:*)'], mode: 'bypassPermissions' }, bash(command)).verdict).toBe(
      'allow',
    );
  });

  it('the bare Bash rule allows none of them, and a host-retargeted allow cell neither', () => {
    const sandboxed = {
      mode: 'safe-yolo' as const,
      modeTable: { 'safe-yolo': { execute: 'allow' as const } },
    };
    for (const command of CODE) {
      expect(judge(shell, { allow: ['Bash'] }, bash(command)).verdict, command).toBe('ask');
      expect(judge(shell, sandboxed, bash(command)).verdict, command).toBe('ask');
    }
    for (const command of CONTROLS) {
      expect(judge(shell, { allow: ['Bash'] }, bash(command)).verdict, command).toBe('allow');
      expect(judge(shell, sandboxed, bash(command)).verdict, command).toBe('allow');
    }
  });
});
