import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';

// Issue 35, class 4: secrets hidden by where they are, not by a table (docs/sandbox.md, "What is
// readable"), with real bubblewrap. Files of tools no table names, anywhere in the home, stay
// unreadable however a command reaches for them; what the home reads back (the workspace inside
// it, the programs on PATH, the host's allowRead) works. Each hidden file holds a line starting
// with SECRET.
let world: SandboxWorld;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** Files of tools nobody listed, in places of the home where such tools put them. */
const UNLISTED: Readonly<Record<string, string>> = {
  '.someunknowntool/token': 'SECRET token of a tool nobody listed\n',
  '.config/newtool/auth.json': 'SECRET auth of a new tool under ~/.config\n',
  'secret.txt': 'SECRET a plain file at the home root\n',
  '.newtoolrc': 'SECRET a dotfile at the home root\n',
  '.local/share/newtool/session.db': 'SECRET a session under ~/.local/share\n',
  '.cache/newtool/refresh': 'SECRET a token cached under ~/.cache\n',
  'work/other-project/.secrets.yml': 'SECRET a sibling project of the workspace\n',
  'work/notes.md': 'SECRET a file beside the workspace\n',
};

beforeAll(async () => {
  world = await sandboxWorld();
  const h = world.home;
  for (const [name, text] of Object.entries(UNLISTED)) await put(join(h, name), text);
  // The workspace inside the home, as it usually is.
  await put(join(h, 'work', 'project', 'src', 'a.txt'), 'a file of the workspace\n');
  await put(
    join(h, 'work', 'project', 'package.json'),
    JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node -e "console.log(40 + 2)"' } }),
  );
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', ...args], {
      cwd: join(h, 'work', 'project'),
      stdio: 'ignore',
    });
  };
  git('init', '-q');
  git('add', 'src', 'package.json');
  git('commit', '-qm', 'first');
  // A program installed in the home, on the PATH, that loads a file of its prefix.
  await put(join(h, '.tools', 'bin', 'hello'), '#!/bin/sh\ncat "$(dirname "$0")/../lib/greeting"\n');
  await chmod(join(h, '.tools', 'bin', 'hello'), 0o755);
  await put(join(h, '.tools', 'lib', 'greeting'), 'hello from the prefix\n');
  // What the host reads back, and a credential of the tables inside it.
  await put(join(h, '.config', 'readback', 'settings.json'), 'a setting the host reads back\n');
  await put(join(h, '.config', 'readback', 'credentials.json'), 'SECRET a credential inside a read-back\n');
  await put(join(h, '.aws', 'credentials'), 'SECRET aws\n');
});
afterAll(async () => {
  await world?.remove();
});

describe('a workspace inside the home: files of tools nobody listed stay hidden', () => {
  let shell: SandboxedShell;
  let workspace: string;
  beforeAll(async () => {
    workspace = join(world.home, 'work', 'project');
    shell = await sandboxedShell({
      workspaceRoot: workspace,
      homeDir: world.home,
      env: { PATH: `${join(world.home, '.tools', 'bin')}:${process.env.PATH}`, LANG: 'C.UTF-8' },
      allowRead: [join(world.home, '.config', 'readback')],
      denyRead: [join(world.home, '.config', 'readback', 'credentials.json')],
    });
    expect(shell.unavailable).toBeUndefined();
  });
  afterAll(async () => {
    await shell?.close();
  });

  it.each(Object.keys(UNLISTED))('cat ~/%s: no secret comes out', async (name) => {
    const result = await shell.run(`cat ~/${name}`);
    expect(result.output).not.toMatch(/SECRET/);
    expect(result.exitCode).not.toBe(0);
  });

  it.each([
    ['a glob over the home root', 'cat ~/* ~/.* 2>/dev/null'],
    ['a glob one level down', 'cat ~/.*/* ~/.config/*/* ~/*/* 2>/dev/null'],
    ['find over the home', 'find ~ -type f -exec cat {} + 2>/dev/null'],
    ['grep over the home', 'grep -r SECRET ~ 2>/dev/null'],
    [
      'a relative path out of the workspace',
      'cat ../notes.md ../other-project/.secrets.yml ../../secret.txt',
    ],
    ['a symlink from the workspace to a file of the home', 'ln -s ~/.someunknowntool/token t && cat t'],
    ['a symlink from the workspace to the home', 'ln -s ~ h && cat h/secret.txt h/.newtoolrc'],
    ['a copy of the home into the workspace', 'cp -r ~/.config copy 2>/dev/null; grep -r SECRET copy'],
    ['tar of the home', 'tar -cf - ~ 2>/dev/null | grep -a SECRET'],
    ['a credential of the tables inside a read-back', 'cat ~/.config/readback/credentials.json'],
    ['a credential of the tables', 'cat ~/.aws/credentials'],
  ])('%s: no secret comes out', async (_, command) => {
    const result = await shell.run(command);
    expect(result.output).not.toMatch(/SECRET/);
  });

  it('a file put into the home after the sandbox started is hidden too', async () => {
    await shell.run('true');
    await put(join(world.home, '.latecomer', 'token'), 'SECRET came after the start\n');
    await put(join(world.home, 'late.txt'), 'SECRET came after the start\n');
    const result = await shell.run('cat ~/.latecomer/token ~/late.txt');
    expect(result.output).not.toMatch(/SECRET/);
  });

  it('a write into the home fails, and nothing lands', async () => {
    const result = await shell.run('echo x > ~/planted; echo x > ~/.newtoolrc');
    expect(result.exitCode).not.toBe(0);
    expect(await readFile(join(world.home, 'planted'), 'utf8').catch(() => 'absent')).toBe('absent');
    expect(await readFile(join(world.home, '.newtoolrc'), 'utf8')).toMatch(/^SECRET/);
  });

  it.each([
    ['the workspace is read', 'cat src/a.txt', 'a file of the workspace\n'],
    ['the workspace is written', 'echo built > out.txt && cat out.txt', 'built\n'],
    ['a program on the PATH in the home runs, with its prefix', 'hello', 'hello from the prefix\n'],
    ['a path the host reads back', 'cat ~/.config/readback/settings.json', 'a setting the host reads back\n'],
    ['node runs', 'node -e "console.log(1 + 1)"', '2\n'],
    ['git runs in the workspace', 'git log --format=%s && git ls-files', 'first\npackage.json\nsrc/a.txt\n'],
  ])('positive control, %s', async (_, command, expected) => {
    expect(await shell.run(command)).toMatchObject({ exitCode: 0, output: expected });
  });

  it('positive control, npm runs a script of the workspace', async () => {
    const result = await shell.run('npm test --silent');
    expect(result).toMatchObject({ exitCode: 0 });
    expect(result.output).toContain('42\n');
  });
});

describe('a workspace outside the home, and a PATH naming /, the home, and a bin beside the home', () => {
  let shell: SandboxedShell;
  beforeAll(async () => {
    await mkdir(join(world.dir, 'bin'), { recursive: true });
    shell = await sandboxedShell({
      workspaceRoot: world.workspace,
      homeDir: world.home,
      env: { PATH: `/:${world.home}:${join(world.dir, 'bin')}:${process.env.PATH}` },
    });
    expect(shell.unavailable).toBeUndefined();
  });
  afterAll(async () => {
    await shell?.close();
  });

  it('no file of the home is readable, whatever its name', async () => {
    const result = await shell.run(
      `grep -r SECRET ~ 2>/dev/null; cat ~/secret.txt ~/.newtoolrc ~/work/notes.md 2>&1 | grep SECRET`,
    );
    expect(result.output).not.toMatch(/SECRET/);
  });

  it('positive control: the workspace is read and written, and the home can be listed', async () => {
    const result = await shell.run('echo ok > made.txt && cat made.txt && ls -a ~ | grep -c secret.txt');
    expect(result).toMatchObject({ exitCode: 0, output: 'ok\n1\n' });
  });
});
