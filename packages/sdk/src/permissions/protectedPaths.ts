/**
 * The paths that an edit (and a sandboxed command) must never write without asking, because what
 * is written there runs later as code or changes what later commands do (docs/permissions-policy.md,
 * "Protected paths"). One table, read by the policy's edit checks and by the sandbox's write
 * denials, so the two never disagree.
 *
 * Each entry names a path relative to **any** directory (the workspace root, `$HOME`, or any
 * directory below them): `.git` protects `.git` at every depth. Names compare case-insensitively,
 * since macOS and Windows file systems do.
 */
export interface ProtectedPath {
  /** `/`-separated, lower case, no leading or trailing `/`: `.git`, `.config/git`, `.bashrc`. */
  readonly name: string;
  /** `tree`: the path and everything below it; `file`: the path itself only. */
  readonly scope: 'tree' | 'file';
  /** What it is for, grouped as in the docs' table. */
  readonly group: ProtectedGroup;
  /** Why a write there is dangerous, in one line. */
  readonly why: string;
}

/** The groups of {@link PROTECTED_PATHS}, as docs/permissions-policy.md lists them. */
export type ProtectedGroup = 'git' | 'agent' | 'ci' | 'editor' | 'shell' | 'tool' | 'secrets';

const tree = (name: string, group: ProtectedGroup, why: string): ProtectedPath =>
  Object.freeze({ name, scope: 'tree', group, why });
const file = (name: string, group: ProtectedGroup, why: string): ProtectedPath =>
  Object.freeze({ name, scope: 'file', group, why });

/** Every protected path. */
export const PROTECTED_PATHS: readonly ProtectedPath[] = Object.freeze([
  // git: hooks, fsmonitor, pagers and aliases in a repository's config run on the next git command.
  tree(
    '.git',
    'git',
    'a repository: hooks, core.fsmonitor and aliases in its config run on the next git command',
  ),
  file('.gitmodules', 'git', 'submodule URLs and update commands that git runs'),
  file('.gitconfig', 'git', 'the user git config (a workspace at $HOME): aliases, pagers, fsmonitor'),
  tree('.config/git', 'git', 'the user git config under XDG: aliases, pagers, fsmonitor, attributes'),
  file('.gitattributes', 'git', 'filter and diff drivers that git runs'),
  // Agents: hooks and MCP servers in their settings run as commands.
  tree('.claude', 'agent', 'Claude Code settings: hooks and permission rules, commands and agents'),
  file('.mcp.json', 'agent', 'MCP servers that an agent starts as commands'),
  tree('.codex', 'agent', 'Codex configuration: MCP servers, approval policy'),
  tree('.gemini', 'agent', 'Gemini CLI settings: MCP servers, tool approval'),
  tree('.cursor', 'agent', 'Cursor rules and MCP servers'),
  tree('.happy', 'agent', 'Happy credentials and settings'),
  tree('.happy-session', 'agent', 'happy-session credentials and settings'),
  file('claude.md', 'agent', 'instructions every later agent session follows'),
  file('agents.md', 'agent', 'instructions every later agent session follows'),
  // CI: workflows run on the next push.
  tree('.github', 'ci', 'workflows and actions that run on the next push'),
  file('.gitlab-ci.yml', 'ci', 'CI jobs that run on the next push'),
  tree('.circleci', 'ci', 'CI jobs that run on the next push'),
  tree('.husky', 'ci', 'git hooks installed by husky'),
  file('.pre-commit-config.yaml', 'ci', 'hooks that pre-commit runs on the next commit'),
  // Editors: tasks and settings that run commands when a folder opens.
  tree('.vscode', 'editor', 'tasks, launch configurations and settings that run commands'),
  tree('.idea', 'editor', 'run configurations and startup tasks'),
  // Shell start-up files: they run in every later shell.
  ...[
    '.bashrc',
    '.bash_profile',
    '.bash_login',
    '.bash_logout',
    '.bash_aliases',
    '.profile',
    '.zshrc',
    '.zshenv',
    '.zprofile',
    '.zlogin',
    '.zlogout',
    '.cshrc',
    '.tcshrc',
    '.login',
    '.logout',
    '.kshrc',
    '.mkshrc',
    '.inputrc',
  ].map((name) => file(name, 'shell', 'a shell start-up file: it runs in every later shell')),
  tree('.config/fish', 'shell', 'fish configuration and conf.d: it runs in every later fish shell'),
  tree('.config/autostart', 'shell', 'programs the desktop starts at the next login'),
  file('.envrc', 'shell', 'direnv runs it on entering the directory'),
  // Tools: configuration that runs commands or changes where packages come from.
  file('.npmrc', 'tool', 'npm configuration: registries, tokens, script shells'),
  file('.yarnrc', 'tool', 'yarn configuration: registries, paths of yarn itself'),
  file('.yarnrc.yml', 'tool', 'yarn configuration: registries, plugins, yarnPath'),
  tree('.yarn', 'tool', 'yarn releases and plugins that yarn runs'),
  file('.pnpmfile.cjs', 'tool', 'hooks that pnpm runs on install'),
  file('.pypirc', 'tool', 'package index credentials'),
  tree('.config/pip', 'tool', 'pip configuration: index URLs'),
  tree('.cargo', 'tool', 'cargo configuration: build scripts, registries, tokens'),
  file('.wgetrc', 'tool', 'wget configuration'),
  file('.curlrc', 'tool', 'curl configuration'),
  file('.netrc', 'tool', 'credentials that curl, git and ftp send'),
  tree('.ssh', 'secrets', 'SSH keys, known hosts and client configuration (ProxyCommand runs commands)'),
  tree('.gnupg', 'secrets', 'GnuPG keys and agent configuration'),
  tree('.aws', 'secrets', 'AWS credentials and configuration (credential_process runs commands)'),
  tree('.kube', 'secrets', 'Kubernetes credentials (exec plugins run commands)'),
  tree('.docker', 'secrets', 'Docker credentials and credential helpers'),
  tree('.config/gcloud', 'secrets', 'Google Cloud credentials'),
]);

/**
 * The names git looks for when it decides that a directory is a repository (a bare one needs only
 * `HEAD`, `objects/` and `refs/`), and the files and directories inside one that run code or
 * change what git does. Writing them anywhere can turn a plain directory into a repository that
 * the next `git status` there obeys, so a file named `HEAD` is protected wherever it is, and the
 * others are protected inside a directory that already holds one of these names.
 */
export const GIT_DIRECTORY_NAMES: readonly string[] = Object.freeze([
  'head',
  'config',
  'objects',
  'refs',
  'hooks',
  'info',
  'packed-refs',
  'commondir',
  'gitdir',
]);

/** The secrets a sandboxed command may not read ({@link PROTECTED_PATHS} of group `secrets`, under `$HOME`). */
export const SECRET_PATHS: readonly ProtectedPath[] = Object.freeze(
  PROTECTED_PATHS.filter(
    (p) =>
      p.group === 'secrets' || ['.happy', '.happy-session', '.netrc', '.npmrc', '.pypirc'].includes(p.name),
  ),
);

/**
 * The entry of {@link PROTECTED_PATHS} that `segments` (a path's components, in order, as written
 * or as resolved) falls under, at any depth; `undefined` when none does.
 */
export function protectedEntry(segments: readonly string[]): ProtectedPath | undefined {
  const lower = segments.map((s) => s.toLowerCase());
  for (let start = 0; start < lower.length; start++) {
    for (const entry of PROTECTED_PATHS) {
      const parts = entry.name.split('/');
      if (start + parts.length > lower.length) continue;
      if (!parts.every((part, i) => lower[start + i] === part)) continue;
      const isWhole = start + parts.length === lower.length;
      if (entry.scope === 'tree' || isWhole) return entry;
    }
  }
  return undefined;
}
