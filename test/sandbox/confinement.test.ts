import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';

// These run bubblewrap for real (scripts/ensure-system-packages.sh installs it; CI runs as root).
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

const exists = (path: string): Promise<boolean> =>
  readFile(path).then(
    () => true,
    () => false,
  );

describe('what a sandboxed command may write (docs/sandbox.md, "The defaults")', () => {
  it('a write in the workspace lands, and the output and exit status come through', async () => {
    const result = await shell.run('mkdir -p src && echo hello > src/a.txt && cat src/a.txt && exit 3');
    expect(result).toMatchObject({ exitCode: 3, sandboxed: true, output: 'hello\n', violations: [] });
    expect(await readFile(join(world.workspace, 'src', 'a.txt'), 'utf8')).toBe('hello\n');
  });

  it('commands started together all run, each confined', async () => {
    const results = await Promise.all(
      ['one', 'two', 'three', 'four'].map((n) => shell.run(`echo ${n} > ${n}.txt && cat ${n}.txt`)),
    );
    expect(results.map((r) => [r.exitCode, r.output])).toEqual([
      [0, 'one\n'],
      [0, 'two\n'],
      [0, 'three\n'],
      [0, 'four\n'],
    ]);
  });

  it.each([
    ['outside the workspace', () => join(world.outside, 'x')],
    ['.git/config', () => join(world.workspace, '.git', 'config')],
    ['.claude/settings.json', () => join(world.workspace, '.claude', 'settings.json')],
    ['a new file at the home root', () => join(world.home, 'planted')],
    [
      'a .github workflow that does not exist yet',
      () => join(world.workspace, '.github', 'workflows', 'x.yml'),
    ],
  ])('a write to %s fails, and is reported as a violation', async (_, target) => {
    const path = target();
    const before = await readFile(path, 'utf8').catch(() => undefined);
    const result = await shell.run(`mkdir -p "$(dirname '${path}')"; echo pwned > '${path}'`);
    expect(result.exitCode).not.toBe(0);
    expect(await readFile(path, 'utf8').catch(() => undefined)).toBe(before);
    expect(result.violations).toContainEqual(
      expect.objectContaining({ type: 'sandbox.violation', kind: 'write' }),
    );
  });

  it('a write to ~/.bashrc fails and is reported: the home file is hidden, so as a read of it', async () => {
    const path = join(world.home, '.bashrc');
    const result = await shell.run(`echo pwned > '${path}'`);
    expect(result.exitCode).not.toBe(0);
    expect(await readFile(path, 'utf8')).toBe('# the temp home\n');
    expect(result.violations).toContainEqual(expect.objectContaining({ type: 'sandbox.violation', path }));
  });

  it('a protected path below the root that exists when the command starts is read-only too', async () => {
    await mkdir(join(world.workspace, 'vendor', 'lib', '.git'), { recursive: true });
    await writeFile(join(world.workspace, 'vendor', 'lib', '.git', 'config'), '[core]\n');
    const result = await shell.run('echo "[core] fsmonitor = x" >> vendor/lib/.git/config');
    expect(result.exitCode).not.toBe(0);
    expect(await readFile(join(world.workspace, 'vendor', 'lib', '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('a directory holding a HEAD keeps its config and hooks read-only (a bare repository git would obey)', async () => {
    await mkdir(join(world.workspace, 'bare'), { recursive: true });
    await writeFile(join(world.workspace, 'bare', 'HEAD'), 'ref: refs/heads/main\n');
    const result = await shell.run('echo "[core] fsmonitor = x" > bare/config');
    expect(result.exitCode).not.toBe(0);
    // Absent, or the sandbox's empty placeholder while it runs: never the command's bytes.
    expect(await readFile(join(world.workspace, 'bare', 'config'), 'utf8').catch(() => '')).toBe('');
  });

  it('a write through a symlink that leads outside lands nowhere', async () => {
    await symlink(world.outside, join(world.workspace, 'elsewhere'));
    const result = await shell.run('echo x > elsewhere/../../outside/through-link; echo x > elsewhere/y');
    expect(result.exitCode).not.toBe(0);
    expect(await exists(join(world.outside, 'through-link'))).toBe(false);
    expect(await exists(join(world.outside, 'y'))).toBe(false);
  });
});

describe('what a sandboxed command may read', () => {
  it('reading ~/.ssh/id_ed25519 fails and is reported; reading the workspace works', async () => {
    const result = await shell.run(`cat '${join(world.home, '.ssh', 'id_ed25519')}'`);
    expect(result.exitCode).not.toBe(0);
    expect(result.output).not.toContain('PRIVATE KEY');
    expect(result.violations).toContainEqual(
      expect.objectContaining({ kind: 'read', path: join(world.home, '.ssh', 'id_ed25519') }),
    );
    expect(await shell.run('cat src/a.txt')).toMatchObject({ exitCode: 0, output: 'hello\n' });
  });

  it('the workspace .env is not readable', async () => {
    const result = await shell.run('cat .env');
    expect(result.output).not.toContain('secret-of-the-workspace');
    expect(result.violations).toContainEqual(
      expect.objectContaining({ kind: 'read', path: join(world.workspace, '.env') }),
    );
  });
});

describe('the network', () => {
  it('a connection to a loopback port the host did not allow fails, and the host sees none', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await shell.run(
        `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3; curl -sS --max-time 5 http://127.0.0.1:${port}/ ; curl -sS --max-time 5 -x "$HTTP_PROXY" http://127.0.0.1:${port}/`,
      );
      expect(result.output).not.toContain('hello from the host');
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('a request to a host not allowed fails with the host named as a violation', async () => {
    const result = await shell.run('curl -fsS --max-time 5 http://not-allowed.example/');
    expect(result.exitCode).not.toBe(0);
    expect(result.violations).toContainEqual(
      expect.objectContaining({ kind: 'network', host: 'not-allowed.example:80' }),
    );
  });
});
