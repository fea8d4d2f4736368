// The native Claude Code binary that the Claude Agent SDK runs, installed for this repository's
// tests and examples only (docs/claude-agent.md, "Testing"). The root install leaves it out: the
// SDK's platform packages (about 400 MB) are overridden by an empty package
// (scripts/claude-code/no-binary), so `npm ci` stays small. This fetches the one platform package
// that matches this machine and the installed SDK's version with npm's own client, checks the
// binary against the checksum in the SDK's manifest, and keeps it under `.cache/claude-code/`
// (gitignored). Running it again finds the verified copy and does nothing.
//
//   npx tsx scripts/claude-code/ensureBinary.ts     prints the binary's path
//
// Tests pass that path to `query()` as `pathToClaudeCodeExecutable`.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const SDK = '@anthropic-ai/claude-agent-sdk';

interface Manifest {
  readonly version: string;
  readonly platforms: Readonly<Record<string, { readonly binary: string; readonly checksum: string }>>;
}

/** What to fetch for this machine: the platform package and the binary it holds. */
export interface BinaryTarget {
  readonly sdkVersion: string;
  readonly claudeCodeVersion: string;
  readonly platform: string;
  readonly packageName: string;
  readonly binaryName: string;
  readonly checksum: string;
  /** Where the verified binary lives. */
  readonly path: string;
}

/** The installed SDK's version and manifest, and this machine's platform package. */
export function binaryTarget(cacheRoot = join(root, '.cache', 'claude-code')): BinaryTarget {
  const sdkFolder = dirname(createRequire(join(root, 'package.json')).resolve(SDK));
  const pkg = JSON.parse(readFileSync(join(sdkFolder, 'package.json'), 'utf8')) as { version: string };
  const manifest = JSON.parse(readFileSync(join(sdkFolder, 'manifest.json'), 'utf8')) as Manifest;
  const platform = platformKey();
  const entry = manifest.platforms[platform];
  if (!entry) throw new Error(`${SDK} ${pkg.version} ships no Claude Code binary for ${platform}`);
  return {
    sdkVersion: pkg.version,
    claudeCodeVersion: manifest.version,
    platform,
    packageName: `${SDK}-${platform}`,
    binaryName: entry.binary,
    checksum: entry.checksum,
    path: join(cacheRoot, `${manifest.version}-${platform}`, entry.binary),
  };
}

/**
 * The path of a verified Claude Code binary for this machine, fetched first when it is not cached.
 * Concurrent callers may both fetch; each moves its own verified copy into place atomically.
 */
export async function ensureClaudeCodeBinary(target = binaryTarget()): Promise<string> {
  const marker = `${target.path}.sha256`;
  if (
    existsSync(target.path) &&
    existsSync(marker) &&
    readFileSync(marker, 'utf8').trim() === target.checksum
  ) {
    return target.path;
  }
  const folder = dirname(target.path);
  await mkdir(folder, { recursive: true });
  const work = await mkdtemp(join(folder, '.fetch-'));
  try {
    await run(
      'npm',
      ['pack', `${target.packageName}@${target.sdkVersion}`, '--pack-destination', work, '--silent'],
      {
        cwd: work,
        maxBuffer: 1 << 20,
      },
    );
    const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${target.packageName} wrote no tarball`);
    await run('tar', ['-xzf', join(work, tarball), '-C', work, `package/${target.binaryName}`]);
    const fetched = join(work, 'package', target.binaryName);
    const checksum = await sha256(fetched);
    if (checksum !== target.checksum) {
      throw new Error(
        `${target.packageName}: the binary's sha256 is ${checksum}, the SDK's manifest says ${target.checksum}`,
      );
    }
    await chmod(fetched, 0o755);
    await rename(fetched, target.path);
    await writeFile(marker, `${checksum}\n`);
    return target.path;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The manifest's platform key: `linux-x64`, `linux-x64-musl`, `darwin-arm64`, `win32-x64`, … */
function platformKey(): string {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux') return base;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)
    ?.header;
  return header?.glibcVersionRuntime ? base : `${base}-musl`;
}

function sha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureClaudeCodeBinary().then(
    (path) => process.stdout.write(`${path}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
