import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';
import { until } from '../helpers/until.js';

// The warm sandbox (docs/sandbox.md, "The warm sandbox"): one bubblewrap sandbox for many
// commands, with real bubblewrap. What can go wrong only because it stays up: it dies, the
// workspace changes under it, two commands share it.
let world: SandboxWorld;
let shell: SandboxedShell;
beforeAll(async () => {
  world = await sandboxWorld();
  shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
  expect(shell.unavailable).toBeUndefined();
});
afterAll(async () => {
  await shell?.close();
  await world?.remove();
});

const text = (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined);

describe('the warm sandbox dies mid-session', () => {
  it('a command that kills the sandbox ends with it, and the next command runs in a new one, as confined', async () => {
    const killer = await shell.run('kill -9 $PPID; sleep 5; echo after');
    expect(killer).toMatchObject({ exitCode: null, signal: 'SIGKILL', sandboxed: true });
    expect(killer.output).not.toContain('after');
    expect(killer.output).toContain('the sandbox ended');
    expect(await shell.run('echo again')).toMatchObject({ exitCode: 0, output: 'again\n' });
    const write = await shell.run('echo x >> .git/config; echo x > ../outside/y');
    expect(write.exitCode).not.toBe(0);
    expect(await readdir(world.outside)).toEqual([]);
  });
});

describe('the workspace changes between two commands', () => {
  it.each([
    ['a .git the host made in a new directory', 'pkg/.git', 'config'],
    ['a .vscode the host made', 'app/.vscode', 'tasks.json'],
    ['a .claude below the root', 'deep/er/.claude', 'settings.json'],
  ])('%s is read-only for the next command', async (_, dir, file) => {
    expect(await shell.run('true')).toMatchObject({ exitCode: 0 });
    await mkdir(join(world.workspace, dir), { recursive: true });
    await writeFile(join(world.workspace, dir, file), 'host\n');
    const result = await shell.run(`echo sandboxed > '${dir}/${file}'`);
    expect(result.exitCode).not.toBe(0);
    expect(await text(join(world.workspace, dir, file))).toBe('host\n');
  });

  it('a .git that a command made is read-only for the next command', async () => {
    expect(await shell.run('mkdir -p made/.git && echo first > made/.git/config')).toMatchObject({
      exitCode: 0,
    });
    const result = await shell.run('echo "[core] fsmonitor = x" > made/.git/config');
    expect(result.exitCode).not.toBe(0);
    expect(await text(join(world.workspace, 'made', '.git', 'config'))).toBe('first\n');
  });

  it('a HEAD the host made makes its directory a repository for the next command', async () => {
    expect(await shell.run('mkdir -p bare2')).toMatchObject({ exitCode: 0 });
    await writeFile(join(world.workspace, 'bare2', 'HEAD'), 'ref: refs/heads/main\n');
    const result = await shell.run('echo "[core] fsmonitor = x" > bare2/config');
    expect(result.exitCode).not.toBe(0);
    expect((await text(join(world.workspace, 'bare2', 'config'))) ?? '').toBe('');
  });

  it('a placeholder the host removed is held again for the next command', async () => {
    expect(await shell.run('true')).toMatchObject({ exitCode: 0 });
    // `.github` does not exist: the sandbox holds it with an empty placeholder; removing that on
    // the host would lift the mount inside a sandbox that stayed up.
    await rm(join(world.workspace, '.github'), { recursive: true, force: true });
    const result = await shell.run('mkdir -p .github/workflows && echo pwned > .github/workflows/x.yml');
    expect(result.exitCode).not.toBe(0);
    expect(await text(join(world.workspace, '.github', 'workflows', 'x.yml'))).toBeUndefined();
  });

  it('positive control: an ordinary file the host made is there and writable for the next command', async () => {
    expect(await shell.run('true')).toMatchObject({ exitCode: 0 });
    await mkdir(join(world.workspace, 'src2'), { recursive: true });
    await writeFile(join(world.workspace, 'src2', 'a.ts'), 'host\n');
    const result = await shell.run('cat src2/a.ts && echo sandboxed >> src2/a.ts');
    expect(result).toMatchObject({ exitCode: 0, output: 'host\n' });
    expect(await text(join(world.workspace, 'src2', 'a.ts'))).toBe('host\nsandboxed\n');
  });

  it('a secret file the host made is unreadable for the next command', async () => {
    expect(await shell.run('true')).toMatchObject({ exitCode: 0 });
    await mkdir(join(world.home, '.aws'), { recursive: true });
    await writeFile(join(world.home, '.aws', 'credentials'), 'aws_secret_access_key = made-later\n');
    const result = await shell.run(`cat '${join(world.home, '.aws', 'credentials')}'`);
    expect(result.output).not.toContain('made-later');
  });
});

describe('two commands at once', () => {
  it('run side by side: the first waits for a file that only the second makes', async () => {
    const [first, second] = await Promise.all([
      shell.run('while [ ! -e flag-from-second ]; do sleep 0.05; done; echo first'),
      shell.run('sleep 0.2; echo hi > flag-from-second; echo second'),
    ]);
    expect(first).toMatchObject({ exitCode: 0, output: 'first\n' });
    expect(second).toMatchObject({ exitCode: 0, output: 'second\n' });
  });

  it('each has its own output, exit status, violations and stop', async () => {
    const stop = new AbortController();
    const long = shell.run('echo started; sleep 1000', {
      signal: stop.signal,
      onOutput: (t) => {
        if (t.includes('started')) void sideBySide.then(() => stop.abort());
      },
    });
    const sideBySide = Promise.all([
      shell.run('curl -fsS --max-time 5 http://one-not-allowed.example/; echo err >&2; exit 3'),
      shell.run('curl -fsS --max-time 5 http://two-not-allowed.example/; exit 4'),
    ]);
    const [one, two] = await sideBySide;
    expect(one).toMatchObject({ exitCode: 3 });
    expect(one.output).toContain('err\n');
    expect(two).toMatchObject({ exitCode: 4 });
    expect(two.output).not.toContain('err\n');
    expect(one.violations.map((v) => v.host)).toEqual(['one-not-allowed.example:80']);
    expect(two.violations.map((v) => v.host)).toEqual(['two-not-allowed.example:80']);
    const stopped = await long;
    expect(stopped).toMatchObject({ aborted: true, output: 'started\n' });
    expect(await shell.run('echo still')).toMatchObject({ exitCode: 0, output: 'still\n' });
  });
});

describe('what a command started ends with it', () => {
  it('a double fork that left its process group and session ends when the command does', async () => {
    const marker = `1000.${process.pid}${Date.now() % 100000}`;
    const result = await shell.run(
      `setsid sh -c 'sleep ${marker} & sleep ${marker} &' ; sleep ${marker} & echo started`,
    );
    expect(result).toMatchObject({ exitCode: 0, output: 'started\n' });
    await until(async () => (await sleepers(marker)).length === 0);
    expect(await sleepers(marker)).toEqual([]);
  });

  it('positive control: such a double fork outlives its command outside the sandbox', async () => {
    const marker = `1001.${process.pid}${Date.now() % 100000}`;
    // `-w`: setsid waits until its child has left the session, so the end of the command's group
    // (processRun) cannot catch that child before it leaves.
    await shell.run(`setsid -w sh -c 'sleep ${marker} &'`, { unsandboxed: true });
    await until(async () => (await sleepers(marker)).length === 1);
    for (const pid of await sleepers(marker)) process.kill(pid, 'SIGKILL');
  });
});

/** The host processes that are `sleep <marker>` and have not ended. */
async function sleepers(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (cmdline.split('\0')[0]?.endsWith('sleep') && cmdline.includes(marker) && !/^\d+ \(.*\) Z/.test(stat))
      pids.push(Number(name));
  }
  return pids;
}
