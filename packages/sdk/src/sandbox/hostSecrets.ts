import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { SECRET_PATHS } from '../policy/protectedPaths.js';

/**
 * What of the host's the sandbox hides by where it is, not by a fixed name (docs/sandbox.md,
 * "What is hidden"): the Happy home and key files this host actually uses, the credential files
 * of common tools where their own variables put them, and every environment variable that is not
 * on an allowlist.
 */

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
]);

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
}): string[] {
  const { env } = options;
  const homes = unique([options.homeDir, homedir()]);
  const out: string[] = [];
  for (const home of homes) {
    for (const p of SECRET_PATHS) out.push(join(home, p.name));
    for (const name of CREDENTIAL_FILES) out.push(join(home, name));
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

function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  return value.startsWith('~/') ? join(home, value.slice(2)) : value;
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
