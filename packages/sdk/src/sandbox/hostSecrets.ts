import { existsSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SECRET_PATHS } from '../policy/protectedPaths.js';

/**
 * What of the host's the sandbox hides by where it is, not by a fixed name (docs/sandbox.md,
 * "What is hidden"): the Happy home and key files this host actually uses, the credential files
 * of common tools where their own variables put them, and every environment variable that is not
 * on an allowlist.
 */

/**
 * What of the home directories a sandboxed command may not read (docs/sandbox.md, "What is
 * readable"): every entry of `homeDir` (the command's `HOME`) and of the user's own home, so a
 * credential of a tool nobody listed is hidden too, but for what is read back, each for a reason:
 * - the workspace and the other writable roots: the command's own files;
 * - `allowRead`: what the host names (the shell's option of the same name);
 * - the programs the command may run: each `PATH` directory inside a home, with its installation
 *   prefix (the directory above a `bin`, `sbin` or `shims`: `~/.nvm/versions/node/v22`,
 *   `~/.cargo`, `~/.pyenv`), whose libraries the programs load; for `~/.local/bin`, whose prefix
 *   also holds other applications' data, only its sibling `lib`; the same for the Node that runs
 *   the sandbox's supervisor (`execPath`).
 *
 * The homes themselves stay mounted read-only, their entries hidden one by one (a directory
 * empty, a file empty), so a write into a home fails as anywhere outside the workspace. A
 * directory on the way to a path read back is not hidden: its other entries are, the same way. A
 * symlink is left alone: what it points at inside a home is hidden by its own entry, and what it
 * points at outside is not the home's. The credential tables of {@link credentialPaths} stay
 * denied inside what is read back. Computed at each start of a warm sandbox: a new entry in a
 * listed directory is not hidden yet, so the sandbox is replaced when their listing changes.
 */
export function homeReadRules(options: {
  readonly homeDir: string;
  readonly workspaceRoot: string;
  readonly allowWrite: readonly string[];
  readonly allowRead: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The Node that runs the supervisor; default this process's. */
  readonly execPath?: string;
}): HomeRules {
  const homes = unique([options.homeDir, realOf(homedir())]);
  const programs = (options.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .map((dir) => realOf(resolve(dir)));
  programs.push(dirname(realOf(options.execPath ?? process.execPath)));
  const back = [options.workspaceRoot, ...options.allowWrite, ...options.allowRead].map((p) =>
    realOf(resolve(p)),
  );
  // Only what lies strictly inside a home is read back for the programs: a PATH entry of `/`, of a
  // home, or a prefix above one (`/tmp/x/bin` beside a home `/tmp/x/home`) reads back no home whole.
  const insideHome = (p: string): boolean => homes.some((home) => p !== home && within(p, home));
  for (const dir of programs) {
    if (!existsSync(dir) || !insideHome(dir)) continue;
    back.push(dir);
    if (!['bin', 'sbin', 'shims'].includes(basename(dir))) continue;
    const prefix = dirname(dir);
    if (homes.some((home) => prefix === join(home, '.local'))) back.push(join(prefix, 'lib'));
    else if (insideHome(prefix)) back.push(prefix);
  }
  const denyRead: string[] = [];
  const listed: string[] = [];
  const names: string[] = [];
  const hide = (dir: string, home = false): void => {
    // A path read back at or above this directory: all of it stays readable.
    if (back.some((p) => within(dir, p))) return;
    const below = back.filter((p) => within(p, dir));
    // A home is never hidden whole: an empty directory in its place would take writes.
    if (below.length === 0 && !home) {
      denyRead.push(dir);
      return;
    }
    const entries = entriesOf(dir);
    listed.push(dir);
    names.push(namesOf(entries));
    for (const entry of entries) if (!entry.isSymbolicLink()) hide(join(dir, entry.name));
  };
  for (const home of homes) if (kindOf(home) === 'directory') hide(home, true);
  return { denyRead: unique(denyRead), listed, listing: names.join('\n') };
}

/** What {@link homeReadRules} found: the paths to hide, and the directories it listed, with their listing. */
export interface HomeRules {
  readonly denyRead: string[];
  readonly listed: readonly string[];
  /** The names in {@link listed} when they were read: see {@link listingOf}. */
  readonly listing: string;
}

/** The listing of `dirs` now, in the form of {@link HomeRules.listing}: another means an entry came or went. */
export function listingOf(dirs: readonly string[]): string {
  return dirs.map((dir) => namesOf(entriesOf(dir))).join('\n');
}

function namesOf(entries: readonly Dirent[]): string {
  return entries
    .map((e) => e.name)
    .sort()
    .join('\0');
}

function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** `path` is `dir` or inside it. */
function within(path: string, dir: string): boolean {
  const r = relative(dir, path);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}

/**
 * Credential files and directories under a home directory, beside `SECRET_PATHS` (the protected
 * trees of group `secrets`, `.happy`, `.netrc`, `.npmrc`, `.pypirc`): files of tools that hold a
 * token or password in clear.
 */
const CREDENTIAL_FILES: readonly string[] = Object.freeze([
  '.config/hub',
  '.config/glab-cli',
  '.config/gitlab',
  '.config/op',
  '.config/rclone',
  '.config/doctl',
  '.config/hcloud',
  '.config/configstore',
  '.config/netlify',
  '.config/heroku',
  '.config/stripe',
  '.config/sentry',
  '.config/helm',
  '.config/containers/auth.json',
  '.local/share/keyrings',
  '.local/share/containers/auth.json',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.yarnrc.yml',
  '.terraformrc',
  '.pgpass',
  '.my.cnf',
  '.s3cfg',
  '.boto',
  '.oci',
  '.databrickscfg',
  '.sentryclirc',
  '.npm/_authToken',
  '.huggingface',
  '.cache/huggingface/token',
  '.config/huggingface',
  '.wrangler',
  '.fly',
  '.vercel',
  '.ngrok2',
  '.config/ngrok',
  '.config/git/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.ivy2/.credentials',
  '.sbt/credentials',
  '.config/pip/pip.conf',
  '.pip/pip.conf',
  '.config/pypoetry/auth.toml',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.bundle/config',
  '.claude/.credentials.json',
  '.claude.json',
  '.codex/auth.json',
  '.wgetrc',
  '.curlrc',
  '.yarnrc',
  '.config/fish/fish_history',
  '.local/share/fish/fish_history',
  '.mongodb',
  '.julia/logs',
]);

/**
 * Histories keep what was typed, tokens included (`export GITHUB_TOKEN=…`, `ALTER USER … PASSWORD`):
 * every entry of a home whose name ends in `history` or `_hist` (`.bash_history`, `.psql_history`,
 * `.node_repl_history`, `.lesshst`), these names whether or not they exist yet, and any other such
 * entry found in the home when the shell starts.
 */
const HISTORY_FILES: readonly string[] = Object.freeze([
  '.bash_history',
  '.zsh_history',
  '.sh_history',
  '.history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.irb_history',
  '.pry_history',
  '.rediscli_history',
  '.lesshst',
  '.dbshell',
  '.Rhistory',
]);

/**
 * Names of credential files inside a directory that a host variable names as a tool's home
 * (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `COMPOSER_HOME`, any `*_HOME` or `*_CONFIG_DIR`): the
 * directory stays readable, these files in it do not.
 */
const CREDENTIAL_NAMES: readonly string[] = Object.freeze([
  'auth.json',
  'auth.toml',
  '.credentials.json',
  '.credentials',
  'credentials',
  'credentials.json',
  'credentials.toml',
  'credentials.db',
  'access_tokens.db',
  'application_default_credentials.json',
  'accessTokens.json',
  'hosts.yml',
  'token',
  'gradle.properties',
  'settings.xml',
  'settings-security.xml',
  'pip.conf',
  '.curlrc',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.wgetrc',
  '.git-credentials',
]);

/**
 * A host variable whose value is a file of a tool's configuration or credentials: that file is
 * hidden. Names in capitals only, as tools spell their own variables: npm's lower-case
 * `npm_config_*` name every setting of npm (its CA file, node-gyp), and its user configuration is in
 * the table above.
 */
const FILE_VARIABLE = /^[A-Z0-9_]*(CONFIG|RC$|PASS|AUTH|CRED|TOKEN|SECRET|KEY|NETRC)[A-Z0-9_]*$/;
/** A host variable whose value is a tool's home: the {@link CREDENTIAL_NAMES} in it are hidden. */
const HOME_VARIABLE = /_HOME$|_CONFIG_DIR$|_CONFIG_HOME$|_CONFIG_PATH$|^[A-Z]+_CONFIG$/;

/**
 * Variables that move a tool's credentials elsewhere: the file or directory they name is hidden
 * wherever it is (`KUBECONFIG` is a list). For a variable that names a tool's whole home (where
 * its programs and caches live too), only the credential files in it.
 */
const CREDENTIAL_VARIABLES: Readonly<Record<string, readonly string[] | undefined>> = Object.freeze({
  HAPPY_HOME_DIR: undefined,
  AWS_SHARED_CREDENTIALS_FILE: undefined,
  AWS_CONFIG_FILE: undefined,
  KUBECONFIG: undefined,
  DOCKER_CONFIG: undefined,
  CLOUDSDK_CONFIG: undefined,
  GOOGLE_APPLICATION_CREDENTIALS: undefined,
  GH_CONFIG_DIR: undefined,
  AZURE_CONFIG_DIR: undefined,
  GNUPGHOME: undefined,
  PASSWORD_STORE_DIR: undefined,
  NPM_CONFIG_USERCONFIG: undefined,
  npm_config_userconfig: undefined,
  NETRC: undefined,
  REGISTRY_AUTH_FILE: undefined,
  HF_TOKEN_PATH: undefined,
  CARGO_HOME: ['credentials', 'credentials.toml'],
  HF_HOME: ['token'],
});

/** Names under `$XDG_CONFIG_HOME` (when it is not `~/.config`) that are secrets as under `~/.config`. */
const XDG_CONFIG_SECRETS: readonly string[] = Object.freeze([
  'gh',
  'gcloud',
  'hub',
  'glab-cli',
  'op',
  'rclone',
  'git/credentials',
]);

/**
 * Every absolute path of a credential of this host that a sandboxed command may not read:
 * `SECRET_PATHS` and {@link CREDENTIAL_FILES} under `homeDir` and under the user's own home (a
 * sandbox given another `HOME` still runs as the same user), the Happy homes (`~/.happy`,
 * `~/.happy-session` and `happyHomeDir`, default `HAPPY_HOME_DIR` of `env`), and wherever `env`'s
 * variables put a tool's credentials.
 */
export function credentialPaths(options: {
  readonly homeDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly happyHomeDir?: string;
  /** Paths inside it are never hidden by the variables' patterns (only by the tables). */
  readonly workspaceRoot?: string;
}): string[] {
  const { env } = options;
  const homes = unique([options.homeDir, homedir()]);
  const out: string[] = [];
  for (const home of homes) {
    for (const p of SECRET_PATHS) out.push(join(home, p.name));
    for (const name of CREDENTIAL_FILES) out.push(join(home, name));
    for (const name of [...HISTORY_FILES, ...historiesIn(home)]) out.push(join(home, name));
    const xdg = env.XDG_CONFIG_HOME;
    if (xdg && isAbsolute(xdg)) for (const name of XDG_CONFIG_SECRETS) out.push(join(xdg, name));
    for (const [name, inside] of Object.entries(CREDENTIAL_VARIABLES)) {
      for (const value of (env[name] ?? '').split(name === 'KUBECONFIG' ? delimiter : '\0')) {
        const path = expandHome(value, home);
        // A relative value names a path relative to wherever the tool runs: nothing fixed to hide.
        if (!path || !isAbsolute(path)) continue;
        if (inside) for (const file of inside) out.push(resolve(path, file));
        else out.push(resolve(path));
      }
    }
  }
  out.push(...namedByVariables(env, homes[0]!, options.workspaceRoot));
  if (options.happyHomeDir) out.push(resolve(expandHome(options.happyHomeDir, homedir())));
  // The Happy home is a directory: its key files (`agent.key`, `access.key`) go with it.
  return unique(out);
}

/**
 * Variables a sandboxed command gets from the host by default: what a shell, a compiler and a
 * test runner need to behave as they do outside, and nothing that commonly carries a credential.
 */
export const ALLOWED_ENV: readonly string[] = Object.freeze([
  'PATH',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_MONETARY',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'TZ',
  'USER',
  'LOGNAME',
  'SHELL',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'CI',
  'NODE_ENV',
  'XDG_RUNTIME_DIR',
]);

/**
 * The environment of a sandboxed command: the {@link ALLOWED_ENV} names and `passEnv` (what the
 * host names) taken from `env`, and `HOME` set to `homeDir`. Everything else of the host's (tokens,
 * keys, the Happy configuration) stays outside.
 */
export function sandboxEnv(
  env: NodeJS.ProcessEnv,
  homeDir: string,
  passEnv: readonly string[] = [],
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of [...ALLOWED_ENV, ...passEnv]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  out.HOME = homeDir;
  return out;
}

/** Entries of `home` whose name says they are a history; none when it cannot be listed. */
function historiesIn(home: string): string[] {
  try {
    return readdirSync(home).filter((name) => /(history|_hist)$/i.test(name));
  } catch {
    return [];
  }
}

/**
 * What the host's variables name by pattern, beside the table of {@link CREDENTIAL_VARIABLES}: the
 * file a configuration or credential variable names (`PGPASSFILE`, `RCLONE_CONFIG`,
 * `GIT_CONFIG_GLOBAL`, `TF_CLI_CONFIG_FILE`, `SSH_AUTH_SOCK`), and the credential files in the home
 * a `*_HOME` or `*_CONFIG_DIR` variable names (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`). A value that is
 * not one absolute path, or that lies in the workspace, is left alone.
 */
function namedByVariables(env: NodeJS.ProcessEnv, home: string, workspace: string | undefined): string[] {
  const out: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (raw === undefined || raw === '' || raw.includes(delimiter) || name === 'HOME' || name === 'PWD')
      continue;
    const path = resolve(expandHome(raw, home));
    if (!isAbsolute(expandHome(raw, home)) || path === '/') continue;
    if (workspace !== undefined && !relative(workspace, path).startsWith('..')) continue;
    const kind = kindOf(path);
    if (kind === 'directory') {
      if (HOME_VARIABLE.test(name)) for (const file of CREDENTIAL_NAMES) out.push(join(path, file));
    } else if (FILE_VARIABLE.test(name)) {
      out.push(path);
    }
  }
  return out;
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function kindOf(path: string): 'directory' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}

function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  return value.startsWith('~/') ? join(home, value.slice(2)) : value;
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
