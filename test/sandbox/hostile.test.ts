import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionWriter } from 'happy-session';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { gatedWriter, runBash, sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';

// Lines the policy misreads on purpose (the classes of issue 23: computed arguments, NUL in ANSI-C
// quoting, reserved-word prefixes, symlinked `..`), allowed by the sandbox mode and run through the
// sandboxed executor: whatever the policy missed, nothing lands outside the workspace or on a
// protected path. The positive controls beside them still run and write inside.
let world: SandboxWorld;
let shell: SandboxedShell;
let writer: SessionWriter;
const originals = new Map<string, string>();

const guarded = (w: SandboxWorld): string[] => [
  join(w.workspace, '.git', 'config'),
  join(w.workspace, '.claude', 'settings.json'),
  join(w.home, '.bashrc'),
];

beforeAll(async () => {
  world = await sandboxWorld();
  execFileSync('git', ['init', '-q', world.workspace]);
  // `src/elsewhere` leads two levels deep outside: `src/elsewhere/../../x` is `src/x` as text and
  // `<outside>/x` to the kernel.
  await mkdir(join(world.outside, 'a', 'b'), { recursive: true });
  await mkdir(join(world.workspace, 'src'), { recursive: true });
  await symlink(join(world.outside, 'a', 'b'), join(world.workspace, 'src', 'elsewhere'));
  // The link every npm workspace has: node_modules/@org/lib → packages/lib.
  await mkdir(join(world.workspace, 'packages', 'lib'), { recursive: true });
  await mkdir(join(world.workspace, 'node_modules', '@org'), { recursive: true });
  await symlink(
    join(world.workspace, 'packages', 'lib'),
    join(world.workspace, 'node_modules', '@org', 'lib'),
  );
  await writeFile(join(world.workspace, 'F'), 'keep\n');
  for (const path of guarded(world)) originals.set(path, await readFile(path, 'utf8'));
  shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
  expect(shell.unavailable).toBeUndefined();
  ({ writer } = await gatedWriter({
    workspaceRoot: world.workspace,
    sandbox: shell.policy,
    timeoutMs: 10_000,
  }));
});
afterAll(async () => {
  await writer?.close();
  await shell?.close();
  await world?.remove();
});

const OUT = '../outside';
const HOSTILE: readonly [string, string][] = [
  [
    'prompt expansion of a command substitution',
    `echo '$(touch ${OUT}/p1; echo x >> .git/config)'; echo \${_@P}`,
  ],
  ['prompt expansion of a variable', `x='$(touch ${OUT}/p2; echo x > .claude/settings.json)'; echo \${x@P}`],
  ['indirection', `y='$(touch ${OUT}/p3)'; z=y; echo \${!z@P}`],
  ['arithmetic on a value', `a='b[$(touch ${OUT}/p4)]'; echo \${PWD:a}`],
  [
    'NUL in ANSI-C quoting',
    `rm$'\\0x' -f .claude/settings.json ${OUT}/../outside/keep; touch$'\\0x' ${OUT}/n1`,
  ],
  ['\\c@ in ANSI-C quoting', `touch$'\\c@' ${OUT}/n2; echo$'\\c@' x > ~/.bashrc`],
  ['time { … }', `time { touch ${OUT}/t1; echo x > ~/.bashrc; }`],
  ['time -p { … }', `time -p { touch ${OUT}/t2; }`],
  ['! { … }', `! { touch ${OUT}/t3; echo x >> .git/config; }`],
  ['coproc', `coproc X { touch ${OUT}/t4; }; wait`],
  ['symlinked ..', 'touch src/elsewhere/../../s1; echo x > src/elsewhere/../../../workspace/.git/config'],
  [
    'the workspace link of npm',
    'echo x > node_modules/@org/lib/../../../.gitconfig; touch node_modules/@org/lib/../../../s2',
  ],
  ['bash -c around it', `bash -c "touch ${OUT}/c1; echo x > $HOME/.bashrc"`],
  [
    'a hook planted into the repository',
    `mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch ${OUT}/hook\\n' > .git/hooks/pre-commit`,
  ],
];

describe('hostile lines run through the sandboxed executor cannot leave the workspace', () => {
  it.each(HOSTILE)(
    '%s: allowed unasked as sandboxed, and nothing lands outside or on a protected path',
    async (_, command) => {
      const { result } = await runBash(writer, shell, { command });
      expect(result.decision).toMatchObject({ outcome: 'allow', source: 'sandbox' });
      expect(await readdir(world.outside, { recursive: true })).toEqual(['a', 'a/b']);
      for (const [path, text] of originals) expect(await readFile(path, 'utf8')).toBe(text);
      expect(await readdir(join(world.workspace, '.git', 'hooks')).catch(() => [])).not.toContain(
        'pre-commit',
      );
      expect(await readFile(join(world.dir, '.gitconfig'), 'utf8').catch(() => 'absent')).toBe('absent');
    },
  );

  it.each([
    ['a write in the workspace', 'echo built > out.txt', 'out.txt'],
    [
      'a write through a link that stays inside',
      'echo lib > node_modules/@org/lib/index.js',
      'packages/lib/index.js',
    ],
    ['the NUL line on an ordinary file', "rm$'\\0x' -f F; echo gone > G", 'G'],
  ])('positive control, %s, lands', async (_, command, file) => {
    const { result } = await runBash(writer, shell, { command });
    expect(result).toMatchObject({ status: 'done', decision: { source: 'sandbox' } });
    expect(await readFile(join(world.workspace, file), 'utf8')).toMatch(/built|lib|gone/);
  });
});
