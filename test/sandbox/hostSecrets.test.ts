import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';

// Secrets hidden by where they are (docs/sandbox.md, "What is hidden"), with real bubblewrap: the
// Happy home and key files of the configuration the host runs with, the credential files of
// common tools wherever their variables put them, and an environment that carries none of the
// host's tokens. Each secret file holds a line starting with SECRET; the positive controls beside
// them are files and variables a command must still see.
let world: SandboxWorld;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

beforeAll(async () => {
  world = await sandboxWorld();
  const h = world.home;
  const files: Record<string, string> = {
    '.happy-local/agent.key': 'SECRET happy key of the configured home\n',
    '.happy/access.key': 'SECRET default happy home\n',
    '.aws/credentials': 'SECRET aws_secret_access_key\n',
    '.config/gh/hosts.yml': 'SECRET gh oauth_token\n',
    '.npmrc': 'SECRET //registry/:_authToken=x\n',
    '.docker/config.json': 'SECRET docker auths\n',
    '.kube/config': 'SECRET kube token\n',
    '.netrc': 'SECRET machine x password y\n',
    '.config/gcloud/credentials.db': 'SECRET gcloud\n',
    '.cargo/credentials.toml': 'SECRET cargo token\n',
    '.pgpass': 'SECRET pg password\n',
    '.git-credentials': 'SECRET https://user:token@host\n',
    'notes.txt': 'a plain file of the home\n',
  };
  for (const [name, text] of Object.entries(files)) await put(join(h, name), text);
  await put(join(world.dir, 'elsewhere', 'kubeconfig'), 'SECRET kubeconfig named by KUBECONFIG\n');
  await put(join(world.dir, 'elsewhere', 'aws-credentials'), 'SECRET aws file named by a variable\n');
  await put(join(world.dir, 'elsewhere', 'plain.txt'), 'a plain file elsewhere\n');
  await put(join(world.dir, 'custom-happy', 'agent.key'), 'SECRET key of happyHomeDir\n');
});
afterAll(async () => {
  await world?.remove();
});

const hostEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  LANG: 'C.UTF-8',
  TERM: 'xterm-256color',
  HAPPY_HOME_DIR: '~/.happy-local',
  HAPPY_SERVER_URL: 'https://SECRET-server.example',
  KUBECONFIG: `${join(world.dir, 'elsewhere', 'kubeconfig')}:/nonexistent/kc`,
  AWS_SHARED_CREDENTIALS_FILE: join(world.dir, 'elsewhere', 'aws-credentials'),
  GITHUB_TOKEN: 'SECRET-github-token',
  AWS_SECRET_ACCESS_KEY: 'SECRET-aws-key',
  NPM_TOKEN: 'SECRET-npm-token',
  OPENAI_API_KEY: 'SECRET-openai',
  MY_BUILD_FLAG: 'visible-because-named',
});

describe('with HAPPY_HOME_DIR=~/.happy-local and tokens in the host environment', () => {
  let shell: SandboxedShell;
  beforeAll(async () => {
    shell = await sandboxedShell({
      workspaceRoot: world.workspace,
      homeDir: world.home,
      env: hostEnv(),
      passEnv: ['MY_BUILD_FLAG'],
      happyHomeDir: join(world.dir, 'custom-happy'),
      allowRead: [join(world.home, 'notes.txt')],
    });
    expect(shell.unavailable).toBeUndefined();
  });
  afterAll(async () => {
    await shell?.close();
  });

  const home = (name: string): string => join(world.home, name);
  const hostile: readonly [string, () => string][] = [
    ['the key in the configured Happy home, by its path', () => `cat '${home('.happy-local/agent.key')}'`],
    ['the key in the configured Happy home, by the variable', () => 'cat "$HAPPY_HOME_DIR/agent.key"'],
    ['the key in the configured Happy home, by ~', () => 'cat ~/.happy-local/agent.key'],
    ['the default Happy home', () => `cat '${home('.happy/access.key')}'`],
    ['the happyHomeDir the host named', () => `cat '${join(world.dir, 'custom-happy', 'agent.key')}'`],
    ['~/.aws', () => 'cat ~/.aws/credentials'],
    ['~/.config/gh', () => 'cat ~/.config/gh/hosts.yml'],
    ['~/.npmrc', () => 'cat ~/.npmrc'],
    ['~/.docker/config.json', () => 'cat ~/.docker/config.json'],
    ['~/.kube', () => 'cat ~/.kube/config'],
    ['~/.netrc', () => 'cat ~/.netrc'],
    ['gcloud', () => 'cat ~/.config/gcloud/credentials.db'],
    ['cargo credentials', () => 'cat ~/.cargo/credentials.toml'],
    ['~/.pgpass', () => 'cat ~/.pgpass'],
    ['~/.git-credentials', () => 'cat ~/.git-credentials'],
    [
      'the file KUBECONFIG names, outside the home',
      () => `cat '${join(world.dir, 'elsewhere', 'kubeconfig')}'`,
    ],
    [
      'the file AWS_SHARED_CREDENTIALS_FILE names, outside the home',
      () => `cat '${join(world.dir, 'elsewhere', 'aws-credentials')}'`,
    ],
    ['every token of the environment', () => 'env; echo "$GITHUB_TOKEN $AWS_SECRET_ACCESS_KEY $NPM_TOKEN"'],
    ['/proc/self/environ', () => 'tr "\\0" "\\n" < /proc/self/environ'],
    [
      'the environment of the parent processes',
      () => 'for p in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $p; done',
    ],
    [
      'a copy through a symlink in the workspace',
      () => `ln -sf '${home('.aws')}' aws-link; cat aws-link/credentials`,
    ],
  ];

  it.each(hostile)('%s: no secret comes out', async (_, command) => {
    const result = await shell.run(command());
    expect(result.output).not.toMatch(/SECRET/);
  });

  it.each([
    [
      'a plain file of the home the host reads back',
      () => `cat '${home('notes.txt')}'`,
      () => 'a plain file of the home\n',
    ],
    [
      'a plain file beside the named credential files',
      () => `cat '${join(world.dir, 'elsewhere', 'plain.txt')}'`,
      () => 'a plain file elsewhere\n',
    ],
    ['LANG, TERM and HOME', () => 'echo "$LANG $TERM $HOME"', () => `C.UTF-8 xterm-256color ${world.home}\n`],
    ['PATH', () => 'command -v cat', () => expect.stringMatching(/^\/.*\/cat\n$/)],
    ['a variable the host named', () => 'echo "$MY_BUILD_FLAG"', () => 'visible-because-named\n'],
  ])('positive control, %s, is seen', async (_, command, expected) => {
    expect(await shell.run(command())).toMatchObject({ exitCode: 0, output: expected() });
  });
});

describe('with HAPPY_HOME_DIR passed into the command (absolute)', () => {
  let shell: SandboxedShell;
  beforeAll(async () => {
    shell = await sandboxedShell({
      workspaceRoot: world.workspace,
      homeDir: world.home,
      env: { PATH: process.env.PATH, HAPPY_HOME_DIR: join(world.home, '.happy-local') },
      passEnv: ['HAPPY_HOME_DIR'],
      allowRead: [join(world.home, 'notes.txt')],
    });
    expect(shell.unavailable).toBeUndefined();
  });
  afterAll(async () => {
    await shell?.close();
  });

  it('cat "$HAPPY_HOME_DIR/agent.key" names the key and still reads nothing', async () => {
    const result = await shell.run('echo "home=$HAPPY_HOME_DIR"; cat "$HAPPY_HOME_DIR/agent.key"');
    expect(result.output).toContain(`home=${join(world.home, '.happy-local')}`);
    expect(result.output).not.toMatch(/SECRET/);
    expect(result.exitCode).not.toBe(0);
  });

  it('positive control: a plain file of the home the host reads back is read', async () => {
    expect(await shell.run(`cat '${join(world.home, 'notes.txt')}'`)).toMatchObject({
      exitCode: 0,
      output: 'a plain file of the home\n',
    });
  });
});
