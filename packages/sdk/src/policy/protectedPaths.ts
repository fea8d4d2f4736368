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

/**
 * The one table the edit checks and the sandbox's write denials both read: a path added here is
 * protected in both at once (docs/permissions-policy.md, "Protected paths").
 */
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
  file('.claude.json', 'agent', 'Claude Code user configuration: MCP servers that it starts as commands'),
  tree('.continue', 'agent', 'Continue configuration: MCP servers and commands'),
  tree('.windsurf', 'agent', 'Windsurf rules and workflows'),
  file('.windsurfrules', 'agent', 'instructions every later Windsurf session follows'),
  file('.cursorrules', 'agent', 'instructions every later Cursor session follows'),
  tree('.clinerules', 'agent', 'Cline rules and workflows'),
  tree('.roo', 'agent', 'Roo Code rules and MCP servers'),
  tree('.kiro', 'agent', 'Kiro steering files and hooks'),
  tree('.amazonq', 'agent', 'Amazon Q rules and MCP servers'),
  tree('.opencode', 'agent', 'opencode agents, commands and plugins'),
  file('opencode.json', 'agent', 'opencode configuration: MCP servers, permissions'),
  tree('.config/opencode', 'agent', 'opencode user configuration: MCP servers, plugins'),
  file('.aider.conf.yml', 'agent', 'aider configuration: lint and test commands it runs'),
  file('claude.md', 'agent', 'instructions every later agent session follows'),
  file('agents.md', 'agent', 'instructions every later agent session follows'),
  file('gemini.md', 'agent', 'instructions every later agent session follows'),
  // CI: workflows run on the next push.
  tree('.github', 'ci', 'workflows and actions that run on the next push'),
  file('.gitlab-ci.yml', 'ci', 'CI jobs that run on the next push'),
  tree('.circleci', 'ci', 'CI jobs that run on the next push'),
  tree('.husky', 'ci', 'git hooks installed by husky'),
  file('.pre-commit-config.yaml', 'ci', 'hooks that pre-commit runs on the next commit'),
  file('lefthook.yml', 'ci', 'git hooks that lefthook runs'),
  file('.lefthook.yml', 'ci', 'git hooks that lefthook runs'),
  tree('.gitlab', 'ci', 'CI files included by .gitlab-ci.yml'),
  tree('.forgejo', 'ci', 'workflows that run on the next push'),
  tree('.gitea', 'ci', 'workflows that run on the next push'),
  tree('.buildkite', 'ci', 'CI pipelines that run on the next push'),
  file('.travis.yml', 'ci', 'CI jobs that run on the next push'),
  file('.drone.yml', 'ci', 'CI jobs that run on the next push'),
  file('azure-pipelines.yml', 'ci', 'CI jobs that run on the next push'),
  file('bitbucket-pipelines.yml', 'ci', 'CI jobs that run on the next push'),
  file('jenkinsfile', 'ci', 'CI jobs that run on the next push'),
  tree('.devcontainer', 'ci', 'dev container definitions: postCreateCommand and friends run commands'),
  // Editors: tasks and settings that run commands when a folder opens.
  tree('.vscode', 'editor', 'tasks, launch configurations and settings that run commands'),
  tree('.idea', 'editor', 'run configurations and startup tasks'),
  tree('.zed', 'editor', 'tasks and settings that run commands'),
  tree('.fleet', 'editor', 'run configurations'),
  file('.exrc', 'editor', 'vim and neovim run it in the directory (exrc)'),
  file('.nvimrc', 'editor', 'neovim runs it in the directory (exrc)'),
  file('.nvim.lua', 'editor', 'neovim runs it in the directory (exrc)'),
  file('.vimrc', 'editor', 'vim runs it at start-up'),
  tree('.vim', 'editor', 'vim plugins that run at start-up'),
  tree('.config/nvim', 'editor', 'neovim configuration and plugins that run at start-up'),
  file('.dir-locals.el', 'editor', 'Emacs evaluates it on opening a file below it'),
  file('.emacs', 'editor', 'Emacs runs it at start-up'),
  tree('.emacs.d', 'editor', 'Emacs configuration that runs at start-up'),
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
    '.xprofile',
    '.xinitrc',
    '.xsession',
    '.tmux.conf',
    '.pam_environment',
  ].map((name) => file(name, 'shell', 'a shell start-up file: it runs in every later shell')),
  tree('.config/fish', 'shell', 'fish configuration and conf.d: it runs in every later fish shell'),
  tree('.config/autostart', 'shell', 'programs the desktop starts at the next login'),
  tree('.config/systemd', 'shell', 'user services that systemd starts'),
  tree('.config/environment.d', 'shell', 'environment of every user service and session'),
  tree('.oh-my-zsh', 'shell', 'zsh plugins that run in every later shell'),
  tree('.local/bin', 'shell', 'a directory on PATH: a file there shadows a command'),
  file('.envrc', 'shell', 'direnv runs it on entering the directory'),
  // Tools: configuration that runs commands or changes where packages come from.
  file('.npmrc', 'tool', 'npm configuration: registries, tokens, script shells'),
  file('.yarnrc', 'tool', 'yarn configuration: registries, paths of yarn itself'),
  file('.yarnrc.yml', 'tool', 'yarn configuration: registries, plugins, yarnPath'),
  tree('.yarn', 'tool', 'yarn releases and plugins that yarn runs'),
  file('.pnpmfile.cjs', 'tool', 'hooks that pnpm runs on install'),
  file('.pnpmfile.mjs', 'tool', 'hooks that pnpm runs on install'),
  tree('.npm', 'tool', 'the npm cache that npx runs packages from'),
  file('bunfig.toml', 'tool', 'bun configuration: preload scripts, registries'),
  file('.bunfig.toml', 'tool', 'bun configuration: preload scripts, registries'),
  file('.mise.toml', 'tool', 'mise configuration: hooks and tasks it runs on entering the directory'),
  file('mise.toml', 'tool', 'mise configuration: hooks and tasks it runs on entering the directory'),
  tree('.config/mise', 'tool', 'mise user configuration: hooks and tasks'),
  file('pip.conf', 'tool', 'pip configuration: index URLs'),
  tree('.pip', 'tool', 'pip configuration: index URLs'),
  file('.condarc', 'tool', 'conda configuration: channels'),
  file('.gemrc', 'tool', 'RubyGems configuration: sources'),
  tree('.bundle', 'tool', 'Bundler configuration: sources, paths'),
  tree('.m2', 'tool', 'Maven settings: repositories, credentials'),
  tree('.gradle', 'tool', 'Gradle init scripts that run in every build'),
  file('.pdbrc', 'tool', 'commands pdb runs when it starts'),
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
  tree('.azure', 'secrets', 'Azure credentials'),
  tree('.config/gh', 'secrets', 'GitHub CLI token'),
  file('.git-credentials', 'secrets', 'git passwords and tokens in clear'),
  tree('.password-store', 'secrets', 'pass passwords'),
  file('.vault-token', 'secrets', 'a HashiCorp Vault token'),
  tree('.terraform.d', 'secrets', 'Terraform credentials'),
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

/**
 * The names of {@link GIT_DIRECTORY_NAMES} that only a repository holds: `HEAD` (git needs it),
 * `objects`, `refs`, and the files that point a repository elsewhere. `config`, `hooks` and `info`
 * are common names in any project (`src/config/`, a React `src/hooks/`), so they alone do not make
 * a directory look like a repository.
 */
export const REPOSITORY_MARKERS: readonly string[] = Object.freeze([
  'head',
  'objects',
  'refs',
  'packed-refs',
  'commondir',
  'gitdir',
]);

/**
 * Names protected wherever they appear, whatever the directory: a `*` at the end matches any
 * rest of the name. Compared like {@link PROTECTED_PATHS}: lower case, at any depth, a directory
 * of that name protecting everything below it.
 */
export interface ProtectedName {
  /** `head`, `.env*`, `-*`. */
  readonly pattern: string;
  readonly group: ProtectedGroup;
  readonly why: string;
}

/** Names no directory makes safe: {@link PROTECTED_PATHS} names a place, these a name anywhere. */
export const PROTECTED_NAMES: readonly ProtectedName[] = Object.freeze([
  Object.freeze({
    pattern: 'head',
    group: 'git' as const,
    why: 'with objects/ and refs/ beside it, a directory becomes a repository that the next git command obeys',
  }),
  Object.freeze({
    pattern: '.env*',
    group: 'secrets' as const,
    why: 'environment files: secrets, loaded by dotenv, direnv and virtualenv activation scripts',
  }),
  Object.freeze({
    pattern: '-*',
    group: 'shell' as const,
    why: 'a name like an option becomes one when a later command expands a glob (`tar … *` and `--checkpoint-action=exec=…`)',
  }),
]);

/** The secrets a sandboxed command may not read ({@link PROTECTED_PATHS} of group `secrets`, under `$HOME`). */
export const SECRET_PATHS: readonly ProtectedPath[] = Object.freeze(
  PROTECTED_PATHS.filter(
    (p) =>
      p.group === 'secrets' || ['.happy', '.happy-session', '.netrc', '.npmrc', '.pypirc'].includes(p.name),
  ),
);

/**
 * A path component as the file systems that ignore case compare it: lower case, and without what
 * they drop or ignore (trailing dots and spaces on Windows, zero-width and bidirectional marks
 * on macOS HFS+), so that `.GIT`, `.git.` and `.g\u200bit` are all `.git`.
 */
export function comparableName(name: string): string {
  let kept = '';
  for (const c of name.normalize('NFC')) if (!isIgnored(c.codePointAt(0)!)) kept += c;
  const lower = kept.toLowerCase();
  const trimmed = lower.replace(/[. ]+$/, '');
  return trimmed.length === 0 ? lower : trimmed;
}

/** Code points HFS+ ignores in names: soft hyphen, fillers, zero-width, joiners, bidirectional and variation marks. */
const IGNORED_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
];

function isIgnored(code: number): boolean {
  return IGNORED_RANGES.some(([from, to]) => code >= from && code <= to);
}

/**
 * The entry of {@link PROTECTED_PATHS} that `segments` (a path's components, in order, as written
 * or as resolved) falls under, at any depth; `undefined` when none does.
 */
export function protectedEntry(segments: readonly string[]): ProtectedPath | undefined {
  const lower = segments.map(comparableName);
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

/** The entry of {@link PROTECTED_NAMES} that one of `segments` has; `undefined` when none does. */
export function protectedName(segments: readonly string[]): ProtectedName | undefined {
  for (const segment of segments) {
    const name = comparableName(segment);
    const found = PROTECTED_NAMES.find((p) =>
      p.pattern.endsWith('*') ? name.startsWith(p.pattern.slice(0, -1)) : name === p.pattern,
    );
    if (found) return found;
  }
  return undefined;
}
