import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileRules,
  evaluatePolicy,
  loadShellParser,
  type PermissionMode,
  type ShellParser,
} from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 1, a red-team set about git (docs/permissions-policy.md, "The command table"):
 *
 * - git is a leaf only while it runs nothing the line planted: `git config` that may write names a
 *   program the next git command runs (core.fsmonitor, alias.*), even when a value is spelled like
 *   a reading action (`git config core.fsmonitor CMD list`); a write into `.git` (a hook, its
 *   config) or of a `HEAD` (a directory with `HEAD`, `objects/` and `refs/` is a repository git
 *   obeys) by a command that writes or changes directory plants code.
 * - A deny or ask rule naming a subcommand (`Bash(git push:*)`) sees it behind git's and the package
 *   managers' global options (`git --no-pager push`, `git -p push`, `npm -s publish`).
 *
 * Real bash shows each line removes the file (or pushes); under the rules each is denied where
 * nobody would be asked and asks elsewhere. Reading git's files, and git itself, still run.
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'git-plants-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = "printf '#!/bin/sh\\nrm -f precious\\n'";

const PLANTS = [
  "git config core.fsmonitor 'rm -f precious; false' && git status",
  "git config core.fsmonitor 'rm -f precious; false' list && git status",
  "git config --file .git/config core.fsmonitor 'rm -f precious; false' && git status",
  "git config --local --add core.fsmonitor 'rm -f precious; false' && git status",
  "git config alias.st '!rm -f precious' && git st",
  `${HOOK} | tee .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && git checkout -q -b side`,
  `cd .git/hooks && ${HOOK} | tee post-checkout && chmod +x post-checkout && cd ../.. && git checkout -q -b side`,
  `${HOOK} | tee ./.git//hooks/post-checkout && chmod +x ./.git/hooks/post-checkout && git switch -q -c side`,
  `${HOOK} | tee hook && chmod +x hook && mkdir -p .git/hooks && cp hook .git/hooks/post-checkout && git checkout -q -b side`,
  `${HOOK} | tee hook && chmod +x hook && mv hook --target-directory=.git/hooks && mv .git/hooks/hook .git/hooks/post-checkout && git checkout -q -b side`,
  "mkdir -p r/objects r/refs && echo 'ref: refs/heads/main' | tee r/HEAD && printf '[core]\\n\\tsshCommand = rm -f ../precious; false\\n' | tee r/config && cd r && git ls-remote ssh://example.invalid/x",
  "printf '[core]\\n\\tfsmonitor = rm -f precious; false\\n' | sed -n 'w .git/config' && git status",
  "find . -maxdepth 0 -fprintf .git/config '[core]\\n\\tfsmonitor = rm -f precious; false\\n' && git status",
  "printf '[core]\\n\\tfsmonitor = rm -f precious; false\\n' | tee $HOME/.gitconfig && git status",
  "mkdir -p $HOME/.config/git && printf '[core]\\n\\tfsmonitor = rm -f precious; false\\n' | tee $HOME/.config/git/config && git status",
];

/** Leaves beside them: reading git's files, git's own work, and a config that only reads. */
const LEAVES = [
  'git status',
  'git log --oneline -1',
  'git config --get user.name',
  'git config --list',
  'git config --file .git/config --get core.bare',
  'cat .git/HEAD',
  'ls .git/hooks',
  'grep -r bare .git/config',
  'git --no-pager log --oneline -1',
  'git checkout -q -b side',
  'find .git -name config',
  'cat /etc/gitconfig',
  'sed -n 1p .gitignore',
  'mkdir -p src/config && touch src/config/index.ts',
];

/** Runs `line` in a fresh repository with one commit and a file `precious`; true when it is gone. */
function removesWithBash(line: string): boolean {
  const work = mkdtempSync(join(dir, 'run-'));
  const git = (...args: string[]): void => {
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], { cwd: work, stdio: 'ignore' });
  };
  git('init', '-q');
  git('commit', '-q', '--allow-empty', '-m', 'first');
  writeFileSync(join(work, 'precious'), 'keep');
  // A home of its own: some lines write git's global configuration there.
  const home = mkdtempSync(join(dir, 'home-'));
  spawnSync('bash', ['-c', line], {
    cwd: work,
    stdio: 'ignore',
    timeout: 20_000,
    env: { ...process.env, HOME: home },
  });
  return !existsSync(join(work, 'precious'));
}

const NOBODY_ASKED: readonly PermissionMode[] = ['bypassPermissions', 'dontAsk'];
const ASKING: readonly PermissionMode[] = ['default', 'acceptEdits', 'safe-yolo'];

function sandboxed(deny: string[], line: string): string {
  const rules = compileRules({ deny });
  if (!rules.ok) throw rules.error;
  return evaluatePolicy(
    { mode: 'default', rules: rules.value, shell, sandbox: { available: true } },
    bash(line),
  ).verdict;
}

describe('real bash: each line plants code that git runs', () => {
  it.each(PLANTS)('%j removes precious', (line) => {
    expect(removesWithBash(line)).toBe(true);
  });
  it.each(LEAVES)('%j does not (positive control)', (line) => {
    expect(removesWithBash(line)).toBe(false);
  });
});

describe('under a deny rule Bash(rm:*)', () => {
  const deny = ['Bash(rm:*)'];
  it.each(PLANTS)('%j is denied where nobody would be asked, and asks elsewhere', (line) => {
    for (const mode of NOBODY_ASKED)
      expect(judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict, mode).toBe('deny');
    for (const mode of ASKING)
      expect(judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict, mode).toBe('ask');
    expect(sandboxed(deny, line)).toBe('deny');
    expect(judge(shell, { deny, mode: 'default' }, { ...bash(line), edited: true }).verdict).toBe('deny');
  });
  it.each(LEAVES)('%j still runs beside the deny rule (positive control)', (line) => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
    expect(judge(shell, { deny, allow: ['Bash'], mode: 'dontAsk' }, bash(line)).verdict).toBe('allow');
    expect(sandboxed(deny, line)).toBe('allow');
  });
});

it.each([
  'echo .git/hooks/post-checkout | xargs chmod +x',
  'echo .git | xargs -I D env -C D/hooks tee post-checkout',
  'sudo -D .git/hooks tee post-checkout',
])(
  "%j may write git's files by a path from its input or a directory: denied in bypassPermissions beside Bash(rm:*)",
  (line) => {
    expect(judge(shell, { deny: ['Bash(rm:*)'], mode: 'bypassPermissions' }, bash(line)).verdict).toBe(
      'deny',
    );
  },
);

it.each(['env -C src ls', 'echo a.txt | xargs cat', 'echo a.txt | xargs wc -l'])(
  '%j still runs in bypassPermissions beside Bash(rm:*) (positive control)',
  (line) => {
    expect(judge(shell, { deny: ['Bash(rm:*)'], mode: 'bypassPermissions' }, bash(line)).verdict).toBe(
      'allow',
    );
  },
);

it("reading git's global configuration by a computed path still runs in bypassPermissions (positive control)", () => {
  const deny = ['Bash(rm:*)'];
  for (const line of ['cat $HOME/.gitconfig', 'grep -c core $HOME/.config/git/config'])
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
});

describe("a subcommand rule sees the subcommand behind git's global options", () => {
  const PUSHES = [
    'git --no-pager push -q origin HEAD:refs/heads/pushed',
    'git -p push -q origin HEAD:refs/heads/pushed',
    'git -P push -q origin HEAD:refs/heads/pushed',
    'git --literal-pathspecs --no-optional-locks push -q origin HEAD:refs/heads/pushed',
    'git --no-replace-objects push -q origin HEAD:refs/heads/pushed',
  ];

  /** Runs `line` in a clone of a local bare repository; true when the branch `pushed` reached it. */
  function pushesWithBash(line: string): boolean {
    const work = mkdtempSync(join(dir, 'push-'));
    const run = (cwd: string, ...args: string[]): void => {
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], { cwd, stdio: 'ignore' });
    };
    run(work, 'init', '-q', '--bare', 'remote.git');
    run(work, 'clone', '-q', 'remote.git', 'clone');
    run(join(work, 'clone'), 'commit', '-q', '--allow-empty', '-m', 'first');
    spawnSync('bash', ['-c', line], { cwd: join(work, 'clone'), stdio: 'ignore', timeout: 20_000 });
    const found = spawnSync('git', ['rev-parse', '--verify', '-q', 'refs/heads/pushed'], {
      cwd: join(work, 'remote.git'),
    });
    return found.status === 0;
  }

  it.each(PUSHES)('real bash: %j pushes', (line) => {
    expect(pushesWithBash(line)).toBe(true);
  });
  it('real bash: git --no-pager log does not (positive control)', () => {
    expect(pushesWithBash('git --no-pager log --oneline')).toBe(false);
  });
  it.each(PUSHES)('%j is denied by a deny rule Bash(git push:*) in every mode', (line) => {
    for (const mode of [...NOBODY_ASKED, ...ASKING])
      expect(judge(shell, { deny: ['Bash(git push:*)'], mode }, bash(line)).verdict, mode).toBe('deny');
  });
  it.each(PUSHES)('%j asks under an ask rule Bash(git push:*) even in bypassPermissions', (line) => {
    expect(judge(shell, { ask: ['Bash(git push:*)'], mode: 'bypassPermissions' }, bash(line)).verdict).toBe(
      'ask',
    );
  });
  it.each(['npm -s publish', 'npm --silent --json publish', 'yarn --silent publish', 'pnpm --json publish'])(
    '%j is denied by a deny rule naming the subcommand, even beside Bash',
    (line) => {
      const tool = line.split(' ')[0]!;
      for (const mode of [...NOBODY_ASKED, ...ASKING])
        expect(
          judge(shell, { deny: [`Bash(${tool} publish:*)`], allow: ['Bash'], mode }, bash(line)).verdict,
          mode,
        ).toBe('deny');
    },
  );
  it.each(['git --no-pager log --oneline', 'git -p status', 'git --no-pager pull'])(
    '%j still runs under Bash(git push:*) in bypassPermissions (positive control)',
    (line) => {
      expect(judge(shell, { ask: ['Bash(git push:*)'], mode: 'bypassPermissions' }, bash(line)).verdict).toBe(
        'allow',
      );
      expect(
        judge(shell, { deny: ['Bash(git push:*)'], mode: 'bypassPermissions' }, bash(line)).verdict,
      ).toBe('allow');
    },
  );
  it('npm -s ls still runs under Bash(npm publish:*) (positive control)', () => {
    expect(
      judge(shell, { deny: ['Bash(npm publish:*)'], mode: 'bypassPermissions' }, bash('npm -s ls')).verdict,
    ).toBe('allow');
  });
});
