import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';

// Issue 35, class 4, a second set written apart from hostSecrets.test.ts (docs/sandbox.md, "What
// is hidden"), with real bubblewrap: credentials of further tools in their default places, in
// places their own variables name, shell and REPL histories that keep tokens typed on a command
// line, and ways around a hidden path (a symlink, a relative path, a glob, a second home). Each
// secret holds a line starting with SECRET; the positive controls beside them must still be seen.
let world: SandboxWorld;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

const HOME_FILES: Readonly<Record<string, string>> = {
  '.config/git/credentials': 'SECRET https://user:token@host (git credential store, XDG place)\n',
  '.m2/settings.xml': '<server><password>SECRET maven</password></server>\n',
  '.m2/settings-security.xml': 'SECRET maven master password\n',
  '.gradle/gradle.properties': 'SECRET gradle signing password\n',
  '.ivy2/.credentials': 'SECRET ivy password\n',
  '.sbt/credentials': 'SECRET sbt password\n',
  '.config/pip/pip.conf': 'SECRET index-url with a token\n',
  '.pip/pip.conf': 'SECRET old pip place\n',
  '.config/pypoetry/auth.toml': 'SECRET poetry token\n',
  '.composer/auth.json': 'SECRET composer token\n',
  '.config/composer/auth.json': 'SECRET composer token (XDG place)\n',
  '.bundle/config': 'SECRET bundler gem server credentials\n',
  '.claude/.credentials.json': 'SECRET claude code oauth token\n',
  '.claude.json': 'SECRET claude code account\n',
  '.codex/auth.json': 'SECRET codex token\n',
  '.wgetrc': 'http_password = SECRET\n',
  '.curlrc': 'user = "me:SECRET"\n',
  '.yarnrc': '"//registry/:_authToken" SECRET\n',
  '.bash_history': 'export GITHUB_TOKEN=SECRET-typed-token\n',
  '.zsh_history': ': 1:0;export NPM_TOKEN=SECRET-typed\n',
  '.psql_history': "ALTER USER me PASSWORD 'SECRET';\n",
  '.mysql_history': "SET PASSWORD = 'SECRET';\n",
  '.python_history': 'token = "SECRET"\n',
  '.node_repl_history': 'const key = "SECRET"\n',
  '.config/gcloud/application_default_credentials.json': 'SECRET adc\n',
  '.ssh/id_ed25519': 'SECRET ssh key\n',
  'notes.txt': 'a plain file of the home\n',
  '.config/app/settings.json': 'a plain setting\n',
  '.gitconfig': '[user]\n\tname = someone\n',
};

/** Files outside the home that a variable of the host names. */
const NAMED: Readonly<Record<string, string>> = {
  PGPASSFILE: 'pgpass',
  RCLONE_CONFIG: 'rclone.conf',
  TF_CLI_CONFIG_FILE: 'terraform.rc',
  PIP_CONFIG_FILE: 'pip.conf',
  GIT_CONFIG_GLOBAL: 'gitconfig',
  WGETRC: 'wgetrc',
  BOTO_CONFIG: 'boto',
  S3CMD_CONFIG: 's3cfg',
  VAULT_CONFIG_PATH: 'vault.hcl',
  OCI_CLI_CONFIG_FILE: 'oci-config',
  BUNDLE_USER_CONFIG: 'bundle-config',
};
/** Directories outside the home that a variable of the host names as a tool's home. */
const NAMED_HOMES: Readonly<Record<string, readonly [string, string]>> = {
  CLAUDE_CONFIG_DIR: ['claude', '.credentials.json'],
  CODEX_HOME: ['codex', 'auth.json'],
  POETRY_CONFIG_DIR: ['poetry', 'auth.toml'],
  COMPOSER_HOME: ['composer', 'auth.json'],
  GRADLE_USER_HOME: ['gradle', 'gradle.properties'],
  CURL_HOME: ['curlhome', '.curlrc'],
};

beforeAll(async () => {
  world = await sandboxWorld();
  for (const [name, text] of Object.entries(HOME_FILES)) await put(join(world.home, name), text);
  for (const [variable, file] of Object.entries(NAMED))
    await put(join(world.dir, 'elsewhere', file), `SECRET file named by ${variable}\n`);
  for (const [variable, [dir, file]] of Object.entries(NAMED_HOMES))
    await put(join(world.dir, 'elsewhere', dir, file), `SECRET in the home ${variable} names\n`);
  await put(join(world.dir, 'elsewhere', 'claude', 'settings.json'), 'a plain setting beside it\n');
  await put(join(world.dir, 'elsewhere', 'ca.pem'), 'a CA bundle npm is told of\n');
  await put(join(world.dir, 'elsewhere', 'certs.pem'), 'a CA bundle TLS is told of\n');
});
afterAll(async () => {
  await world?.remove();
});

function hostEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C.UTF-8' };
  for (const [variable, file] of Object.entries(NAMED)) env[variable] = join(world.dir, 'elsewhere', file);
  for (const [variable, [dir]] of Object.entries(NAMED_HOMES))
    env[variable] = join(world.dir, 'elsewhere', dir);
  // Files a command needs, named by variables that are no tool's credentials.
  env.npm_config_cafile = join(world.dir, 'elsewhere', 'ca.pem');
  env.SSL_CERT_FILE = join(world.dir, 'elsewhere', 'certs.pem');
  return env;
}

describe('a second set of credentials by location, with real bubblewrap', () => {
  let shell: SandboxedShell;
  beforeAll(async () => {
    // The home is hidden whole but for what the host reads back (docs/sandbox.md, "What is
    // readable"): these read-backs are the controls; the credential files beneath them stay hidden.
    shell = await sandboxedShell({
      workspaceRoot: world.workspace,
      homeDir: world.home,
      env: hostEnv(),
      allowRead: ['notes.txt', '.config', '.gitconfig'].map((name) => join(world.home, name)),
    });
    expect(shell.unavailable).toBeUndefined();
  });
  afterAll(async () => {
    await shell?.close();
  });

  const inHome = Object.keys(HOME_FILES).filter((name) => /SECRET/.test(HOME_FILES[name]!));
  it.each(inHome)('~/%s: no secret comes out', async (name) => {
    const result = await shell.run(`cat ~/${name}`);
    expect(result.output).not.toMatch(/SECRET/);
  });

  it.each(Object.entries(NAMED))(
    'the file %s names, outside the home: no secret comes out',
    async (_v, file) => {
      const result = await shell.run(`cat '${join(world.dir, 'elsewhere', file)}'`);
      expect(result.output).not.toMatch(/SECRET/);
    },
  );

  it.each(Object.entries(NAMED_HOMES))(
    'the credentials in the home %s names: no secret comes out',
    async (_v, [dir, file]) => {
      const result = await shell.run(`cat '${join(world.dir, 'elsewhere', dir, file)}'`);
      expect(result.output).not.toMatch(/SECRET/);
    },
  );

  it.each([
    ['a glob over every history', () => 'cat ~/.*_history ~/.*history 2>/dev/null'],
    [
      'a relative path from the workspace',
      () =>
        `cd '${world.workspace}' && cat ../home/.claude/.credentials.json 2>/dev/null; cat "$(realpath --relative-to=. ~/.m2/settings.xml)"`,
    ],
    ['a symlink made in the workspace', () => 'ln -sf ~/.config/git/credentials creds && cat creds'],
    ['a copy by find', () => 'find ~ -name "*.credentials.json" -exec cat {} + 2>/dev/null'],
    ['grep over the whole home', () => 'grep -r SECRET ~ 2>/dev/null'],
  ])('%s: no secret comes out', async (_name, command) => {
    const result = await shell.run(command());
    expect(result.output).not.toMatch(/SECRET/);
  });

  it.each([
    ['a plain file of the home read back', () => 'cat ~/notes.txt', 'a plain file of the home\n'],
    [
      'a plain setting under ~/.config, read back',
      () => 'cat ~/.config/app/settings.json',
      'a plain setting\n',
    ],
    ['the git identity in ~/.gitconfig, read back', () => 'cat ~/.gitconfig', '[user]\n\tname = someone\n'],
    [
      'a plain file in the home CLAUDE_CONFIG_DIR names',
      () => `cat '${join(world.dir, 'elsewhere', 'claude', 'settings.json')}'`,
      'a plain setting beside it\n',
    ],
    [
      "the CA file of npm's settings (npm_config_cafile)",
      () => `cat '${join(world.dir, 'elsewhere', 'ca.pem')}'`,
      'a CA bundle npm is told of\n',
    ],
    [
      'the CA bundle SSL_CERT_FILE names',
      () => `cat '${join(world.dir, 'elsewhere', 'certs.pem')}'`,
      'a CA bundle TLS is told of\n',
    ],
  ])('positive control, %s, is seen', async (_name, command, expected) => {
    expect(await shell.run(command())).toMatchObject({ exitCode: 0, output: expected });
  });
});
