import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

/**
 * Keeps git from listing the runtime's placeholders (the missing protected names it holds while a
 * command runs) as untracked files: the command's git reads an excludes file that names them,
 * after the user's own global excludes (docs/sandbox.md, "The defaults").
 */
export class PlaceholderExcludes {
  private dir: Promise<string> | undefined;
  private userExcludes: Promise<string> | undefined;

  constructor(
    private readonly homeDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The variables that point the command's git at an excludes file for `missing`; `{}` when none are in `root`. */
  async envFor(root: string, missing: readonly string[], id: string): Promise<Record<string, string>> {
    const names = missing
      .map((p) => relative(root, p))
      .filter((r) => r !== '' && !r.startsWith('..') && !r.includes(sep));
    if (names.length === 0) return {};
    const dir = await (this.dir ??= mkdtemp(join(tmpdir(), 'happy-sandbox-git-')));
    const file = join(dir, `exclude-${id}`);
    await writeFile(file, `${await this.ownExcludes()}\n${names.map((n) => `/${n}`).join('\n')}\n`);
    const n = Number.parseInt(this.env.GIT_CONFIG_COUNT ?? '0', 10) || 0;
    return {
      GIT_CONFIG_COUNT: String(n + 1),
      [`GIT_CONFIG_KEY_${n}`]: 'core.excludesFile',
      [`GIT_CONFIG_VALUE_${n}`]: file,
    };
  }

  async remove(id: string): Promise<void> {
    if (this.dir) await rm(join(await this.dir, `exclude-${id}`), { force: true });
  }

  async close(): Promise<void> {
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }

  /** The user's global excludes, which core.excludesFile replaces: kept, read once. */
  private ownExcludes(): Promise<string> {
    this.userExcludes ??= new Promise<string>((resolve) =>
      execFile(
        'git',
        ['config', '--global', '--get', 'core.excludesFile'],
        { env: { ...this.env, HOME: this.homeDir } },
        (_, stdout) => resolve(stdout.trim()),
      ),
    ).then(async (configured) => {
      const xdg = this.env.XDG_CONFIG_HOME || join(this.homeDir, '.config');
      const path = configured.startsWith('~/') ? join(this.homeDir, configured.slice(2)) : configured;
      return readFile(path || join(xdg, 'git', 'ignore'), 'utf8').catch(() => '');
    });
    return this.userExcludes;
  }
}
