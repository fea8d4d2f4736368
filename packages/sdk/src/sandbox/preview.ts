import { execFile } from 'node:child_process';
import { copyFile, lstat, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { protectedEntry } from '../policy/protectedPaths.js';
import { credentialPaths, homeReadRules, sandboxEnv } from './hostSecrets.js';
import type { PermissionPreview, PreviewFile } from '../protocol/sessionMessage.js';
import type { CallPreviewer } from '../stream/plugins.js';
import { runProcess } from './processRun.js';
import { hashFile, hashTree, isText, shortDiff, type TreeBounds, type TreeHashes } from './previewTree.js';

const run = promisify(execFile);

/** Options of {@link previewCommand}. */
export interface PreviewOptions {
  /** Absolute path of the workspace the command would change. */
  readonly workspaceRoot: string;
  readonly command: string;
  /** Relative to the workspace root; default the root. */
  readonly cwd?: string;
  /** A home hidden beside the user's own (but the workspace and the programs on `PATH`); default the user's home directory. */
  readonly homeDir?: string;
  /**
   * The host's environment: the command gets only the names the sandboxed shell passes, and the
   * credential files it names are hidden (docs/sandbox.md); default this process's.
   */
  readonly env?: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
  /** Absolute path of `bwrap`; default the one on the `PATH`. */
  readonly bwrapPath?: string;
  readonly limits?: Partial<TreeBounds>;
}

/** A preview with the copy it ran on: apply it on allow, discard it otherwise. */
export interface PreviewRun {
  readonly preview: PermissionPreview;
  /**
   * Lands exactly the previewed change in the workspace if none of the files it touches changed
   * since the preview (by content hash): `applied`; otherwise nothing lands and it says `stale`.
   * Only for an `applicable` preview.
   */
  apply(): Promise<'applied' | 'stale'>;
  /** Removes the copy. */
  discard(): Promise<void>;
}

const MAX_FILES_SHOWN = 100;
const TAIL_CHARS = 2_000;
const DIFF_BYTES = 64 * 1024;

/** The program run inside the sandbox: a refusing HTTP proxy that logs each target, then the command. */
const RUNNER = `
import net from 'node:net';
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
const [log, procs, command] = process.argv.slice(2);
const server = net.createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', (data) => {
    const m = /^(\\S+) (\\S+)/.exec(data.toString('latin1'));
    if (m) {
      let target = m[2];
      if (m[1] !== 'CONNECT') { try { const u = new URL(target); target = u.host + (u.port ? '' : (u.protocol === 'https:' ? ':443' : ':80')); } catch {} }
      appendFileSync(log, target + '\\n');
    }
    socket.end('HTTP/1.1 403 Forbidden\\r\\nContent-Length: 0\\r\\n\\r\\n');
  });
});
server.listen(0, '127.0.0.1', () => {
  const proxy = 'http://127.0.0.1:' + server.address().port;
  const env = { ...process.env, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, ALL_PROXY: proxy, all_proxy: proxy, NO_PROXY: '', no_proxy: '' };
  const child = spawn('/bin/bash', ['-c', command], { stdio: 'inherit', env });
  child.on('exit', (code, signal) => {
    const left = readdirSync('/proc').filter((n) => {
      if (!/^\\d+$/.test(n) || n === '1' || Number(n) === process.pid) return false;
      try { const s = readFileSync('/proc/' + n + '/stat', 'utf8'); return s.slice(s.lastIndexOf(')') + 2)[0] !== 'Z'; } catch { return false; }
    });
    writeFileSync(procs, String(left.length));
    process.exit(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15));
  });
});
`;

/**
 * Runs `command` first on a private copy of the workspace, in bubblewrap with no network (a
 * refusing proxy records the connections it tries), and says what it would change: the files
 * created, changed and deleted (by content hash), the connections tried, the processes it left,
 * its exit status and its output's tail (docs/sandbox.md, "Preview before approval").
 *
 * @throws {SdkError} `sandbox.preview_too_large` past the limits of the copy.
 */
export async function previewCommand(options: PreviewOptions): Promise<PreviewRun> {
  const root = await realpath(options.workspaceRoot);
  const bounds: TreeBounds = { maxFiles: 50_000, maxBytes: 512 * 1024 * 1024, ...options.limits };
  const before = await hashTree(root, bounds);
  const base = await realpath(await mkdtemp(join(tmpdir(), 'hs-preview-')));
  try {
    const copy = join(base, 'copy');
    const scratch = join(base, 'tmp');
    await mkdir(scratch);
    // A reflink where the filesystem has them, else a plain copy: never hard links, which a
    // command writing in place would change in the original.
    await run('cp', ['-a', '--reflink=auto', root, copy]);
    await writeFile(join(scratch, '.hs-runner.mjs'), RUNNER);
    const home = await realpath(options.homeDir ?? homedir()).catch(() => options.homeDir ?? homedir());
    const hostEnv = options.env ?? process.env;
    // The homes' entries and the host's credentials, as the sandboxed shell hides them
    // (docs/sandbox.md, "What is readable", "What is hidden"): the preview's output goes into the
    // permission request, so it may read no more than the real run. A link among the homes' entries
    // is left as it is (what it points to is judged where it lies); a credential path is hidden
    // even when it is a link.
    const homeEntries = homeReadRules({
      homeDir: home,
      workspaceRoot: root,
      allowWrite: [],
      allowRead: [],
      env: hostEnv,
    });
    const hidden = [
      ...(await hidingArgs(homeEntries.denyRead, { skipLinks: true })),
      ...(await hidingArgs(credentialPaths({ homeDir: home, env: hostEnv }), { skipLinks: false })),
    ];
    const cwd = resolve(root, options.cwd ?? '.');
    const args = [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--bind',
      scratch,
      '/tmp',
      '--bind',
      copy,
      root,
      ...hidden,
      '--unshare-net',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--die-with-parent',
      '--new-session',
      '--chdir',
      cwd,
      process.execPath,
      '/tmp/.hs-runner.mjs',
      '/tmp/.hs-net.log',
      '/tmp/.hs-procs',
      options.command,
    ];
    const exit = await runProcess({
      file: options.bwrapPath ?? 'bwrap',
      args,
      cwd: base,
      // The sandboxed shell's environment: no host token reaches the preview either.
      env: { ...sandboxEnv(hostEnv, home), TMPDIR: '/tmp' },
      signal: options.signal ?? new AbortController().signal,
      onOutput: () => undefined,
    });
    const network = unique(
      (await readFile(join(scratch, '.hs-net.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean),
    );
    const processesLeft = Number(await readFile(join(scratch, '.hs-procs'), 'utf8').catch(() => '0')) || 0;
    const after = await hashTree(copy, bounds);
    const files = await changedFiles(root, copy, before, after);
    const protectedTouched = files.filter((f) => protectedEntry(f.path.split('/')) !== undefined);
    const reasons = [
      ...(network.length > 0 ? [`it tried the network (${network.join(', ')})`] : []),
      ...(processesLeft > 0 ? [`it left ${processesLeft} process(es) running`] : []),
      ...(protectedTouched.length > 0
        ? [`it touches protected paths (${protectedTouched.map((f) => f.path).join(', ')})`]
        : []),
      ...(exit.aborted ? ['the preview was stopped'] : []),
    ];
    const preview: PermissionPreview = {
      files: files.slice(0, MAX_FILES_SHOWN),
      ...(files.length > MAX_FILES_SHOWN ? { filesOmitted: files.length - MAX_FILES_SHOWN } : {}),
      network,
      processesLeft,
      exitCode: exit.exitCode,
      outputTail: exit.output.slice(-TAIL_CHARS),
      applicable: reasons.length === 0,
      ...(reasons.length > 0 ? { reason: `${reasons.join('; ')}: on allow it runs again, for real` } : {}),
    };
    let discarded = false;
    const discard = async (): Promise<void> => {
      if (discarded) return;
      discarded = true;
      await rm(base, { recursive: true, force: true });
    };
    const apply = async (): Promise<'applied' | 'stale'> => {
      if (discarded) return 'stale';
      for (const f of files) {
        const now = await hashFile(join(root, f.path));
        if (now?.hash !== before.get(f.path)?.hash) return 'stale';
        const mine = await hashFile(join(copy, f.path));
        if (mine?.hash !== after.get(f.path)?.hash) return 'stale';
      }
      for (const f of files) {
        const target = join(root, f.path);
        if (f.change === 'deleted') {
          await rm(target, { force: true });
          continue;
        }
        await mkdir(dirname(target), { recursive: true });
        await rm(target, { force: true });
        await copyFile(join(copy, f.path), target);
      }
      await discard();
      return 'applied';
    };
    return { preview, apply, discard };
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
}

/** bubblewrap arguments hiding each of `paths` that exists: a directory under an empty tmpfs, a file under `/dev/null`. */
async function hidingArgs(paths: Iterable<string>, { skipLinks }: { skipLinks: boolean }): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    const stat = await lstat(path).catch(() => undefined);
    if (!stat || (skipLinks && stat.isSymbolicLink())) continue;
    out.push(...(stat.isDirectory() ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  }
  return out;
}

async function changedFiles(
  root: string,
  copy: string,
  before: TreeHashes,
  after: TreeHashes,
): Promise<PreviewFile[]> {
  const out: PreviewFile[] = [];
  for (const [path, entry] of after) {
    const was = before.get(path);
    if (was?.hash === entry.hash) continue;
    const file: PreviewFile = { path, change: was ? 'changed' : 'created', size: entry.size };
    out.push({ ...file, ...(await diffOf(was ? join(root, path) : undefined, join(copy, path))) });
  }
  for (const [path, entry] of before) {
    if (!after.has(path)) out.push({ path, change: 'deleted', size: entry.size });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function diffOf(original: string | undefined, changed: string): Promise<{ diff?: string }> {
  const [a, b] = await Promise.all([
    original ? readFile(original).catch(() => undefined) : Buffer.alloc(0),
    readFile(changed).catch(() => undefined),
  ]);
  if (!a || !b || a.length > DIFF_BYTES || b.length > DIFF_BYTES || !isText(a) || !isText(b)) return {};
  return { diff: shortDiff(a.toString('utf8'), b.toString('utf8')) };
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** Options of {@link shellPreviewer}: {@link PreviewOptions} without the command. */
export type ShellPreviewerOptions = Omit<PreviewOptions, 'command' | 'cwd' | 'signal'>;

/**
 * The gate's `preview` option for Bash calls (`{ command, cwd? }`): each call that asks runs first
 * on a copy of the workspace (see {@link previewCommand}); other tools are not previewed.
 */
export function shellPreviewer(options: ShellPreviewerOptions): CallPreviewer {
  return async ({ toolName, args, signal }) => {
    if (toolName !== 'Bash' || typeof args.command !== 'string' || args.command.trim() === '')
      return undefined;
    return previewCommand({
      ...options,
      command: args.command,
      ...(typeof args.cwd === 'string' ? { cwd: args.cwd } : {}),
      signal,
    });
  };
}
