// Install without a registry: packs the three packages (their `prepack` builds them) into one
// folder, so that `npm i <folder>/<tarball>` installs any of them from a checkout. The relay's and
// the CLI's dependencies on the SDK (and the CLI's on the relay) are pointed at the sibling
// tarballs (`file:./happy-session-0.1.0.tgz`), which npm resolves beside the tarball being
// installed: the CLI installs alone. `npm run pack:local [-- <folder>]` prints the install lines
// on stdout, and its progress on stderr.
//
// Only what changed is built again: each tarball is kept with a fingerprint of what went into it
// (its package's files, and those of the packages it builds from), and a package whose
// fingerprint is unchanged is not built or packed again (README.md, "Install").
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Workspace folder of each package, in the order they depend on each other. */
const FOLDERS = { sdk: 'packages/sdk', relay: 'packages/relay', cli: 'packages/cli' } as const;
type Part = keyof typeof FOLDERS;
/**
 * What each package's build reads of the others': the relay bundles the SDK's browser code into
 * its viewer and reads its types; the CLI's build leaves both as imports.
 */
const BUILDS_FROM: Readonly<Record<Part, readonly Part[]>> = { sdk: [], relay: ['sdk'], cli: [] };
/** Files of the workspace every build reads: the compiler settings and the locked tool versions. */
const SHARED_INPUTS = ['tsconfig.json', 'package-lock.json', 'scripts/packLocal.ts'];
/** Folders of a package that are outputs or installs, not inputs. */
const NOT_INPUTS = new Set(['node_modules', 'dist']);
/** Where the fingerprints of the tarballs in a folder are kept. */
const STAMP = '.pack-local.json';
/** How often a long build says it is still going. */
const HEARTBEAT_MS = 15_000;

/** What {@link packLocal} made: the absolute path of each tarball, and the lines to install them. */
export interface LocalPacks {
  readonly tarballs: Readonly<Record<Part, string>>;
  /** `npm i <sdk tarball>`: the SDK, for a program. */
  readonly sdkInstall: string;
  /** `npm i <cli tarball>`: the `happy-session` command, its SDK and relay from beside it. */
  readonly cliInstall: string;
  /** The packages built and packed in this run; the others were unchanged and kept. */
  readonly rebuilt: readonly Part[];
}

/** Options of {@link packLocal}. */
export interface PackLocalOptions {
  /** Each line of progress (default: none). The command prints them on stderr. */
  readonly progress?: (line: string) => void;
  /** Build and pack every package, even unchanged ones. */
  readonly force?: boolean;
}

interface Stamp {
  readonly [part: string]: { readonly fingerprint: string; readonly name: string; readonly file: string };
}

/** Packs the SDK, the relay and the CLI into `folder` (made if missing) and says how to install them. */
export async function packLocal(folder: string, options: PackLocalOptions = {}): Promise<LocalPacks> {
  const say = options.progress ?? (() => undefined);
  const destination = resolve(folder);
  mkdirSync(destination, { recursive: true });
  const stampPath = join(destination, STAMP);
  const stamp: Record<string, Stamp[string]> = existsSync(stampPath)
    ? (JSON.parse(readFileSync(stampPath, 'utf8')) as Stamp)
    : {};
  const own = Object.fromEntries(
    (Object.keys(FOLDERS) as Part[]).map((part) => [part, filesHash(join(ROOT, FOLDERS[part]))]),
  ) as Record<Part, string>;
  const parts = Object.keys(FOLDERS) as Part[];
  // Every tarball names its siblings' files, so every package's name and version is an input.
  const names = parts.map((part): [string, string] => [part, nameAndVersion(join(ROOT, FOLDERS[part]))]);
  const shared = hashOf([
    ...SHARED_INPUTS.map((file): [string, Buffer] => [file, readFileSync(join(ROOT, file))]),
    ...names,
  ]);
  const rebuilt: Part[] = [];
  for (const [index, part] of parts.entries()) {
    const fingerprint = hashOf([
      ['shared', shared],
      ...[part, ...BUILDS_FROM[part]].map((p): [string, string] => [p, own[p]]),
    ]);
    const kept = stamp[part];
    const label = `[${index + 1}/${parts.length}] ${FOLDERS[part]}`;
    if (!options.force && kept?.fingerprint === fingerprint && existsSync(join(destination, kept.file))) {
      say(`${label}: unchanged since the last pack, keeping ${kept.file}`);
      continue;
    }
    const started = Date.now();
    for (const from of BUILDS_FROM[part]) {
      // Its build reads that package's built files, which a kept tarball did not need.
      if (!existsSync(join(ROOT, FOLDERS[from], 'dist'))) {
        say(`${label}: building ${FOLDERS[from]} first, whose build it reads…`);
        await run('npm', ['run', 'build'], { cwd: join(ROOT, FOLDERS[from]), maxBuffer: 64 * 1024 * 1024 });
      }
    }
    say(`${label}: ${kept ? 'changed, building' : 'building'} and packing…`);
    const heartbeat = setInterval(
      () => say(`${label}: still building (${Math.round((Date.now() - started) / 1000)} s)`),
      HEARTBEAT_MS,
    );
    try {
      const packed = await npmPack(join(ROOT, FOLDERS[part]), destination);
      stamp[part] = { fingerprint, ...packed };
    } finally {
      clearInterval(heartbeat);
    }
    rebuilt.push(part);
    const size = statSync(join(destination, stamp[part].file)).size;
    say(
      `${label}: packed ${stamp[part].file} (${(size / 1024).toFixed(0)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const packed = stamp as Record<Part, Stamp[string]>;
  const siblings = Object.fromEntries(
    parts.map((part) => [packed[part].name, `file:./${packed[part].file}`]),
  ) as Record<string, string>;
  // A kept tarball points at its siblings already; a new one is rewritten once.
  for (const part of ['relay', 'cli'] as const) {
    if (rebuilt.includes(part)) await pointAtSiblings(join(destination, packed[part].file), siblings);
  }
  writeFileSync(stampPath, `${JSON.stringify(stamp, null, 2)}\n`);
  const tarballs = {
    sdk: join(destination, packed.sdk.file),
    relay: join(destination, packed.relay.file),
    cli: join(destination, packed.cli.file),
  };
  return { tarballs, sdkInstall: `npm i ${tarballs.sdk}`, cliInstall: `npm i ${tarballs.cli}`, rebuilt };
}

/** `npm pack` of one package folder (its `prepack` builds it): the package's name and tarball. */
async function npmPack(folder: string, destination: string): Promise<{ name: string; file: string }> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: folder,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  // The prepack build prints before npm's JSON: the JSON is the last thing on stdout.
  const [entry] = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as Array<{
    name: string;
    filename: string;
  }>;
  return { name: entry!.name, file: entry!.filename };
}

/** `name@version` of the package in `folder`. */
function nameAndVersion(folder: string): string {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return `${manifest.name}@${manifest.version}`;
}

/** A hash of every file under `folder` (paths and contents), outputs and installs left out. */
function filesHash(folder: string): string {
  const entries: Array<[string, Buffer]> = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (NOT_INPUTS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) entries.push([relative(folder, path), readFileSync(path)]);
    }
  };
  walk(folder);
  return hashOf(entries);
}

function hashOf(entries: ReadonlyArray<readonly [string, Buffer | string]>): string {
  const hash = createHash('sha256');
  for (const [name, content] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hash.update(`${name}\0${Buffer.byteLength(content)}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/** Rewrites the tarball's dependencies on the workspace's packages to the tarballs beside it. */
async function pointAtSiblings(tarball: string, siblings: Record<string, string>): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'pack-local-'));
  try {
    await run('tar', ['-xzf', tarball, '-C', work]);
    const manifestPath = join(work, 'package', 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (siblings[name]) manifest.dependencies![name] = siblings[name];
    }
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    await run('tar', ['-czf', tarball, '-C', work, 'package']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const folder = args.find((arg) => !arg.startsWith('--')) ?? join(ROOT, 'packs');
  const packs = await packLocal(folder, {
    force,
    progress: (line) => process.stderr.write(`pack:local ${line}\n`),
  });
  process.stdout.write(
    [
      'Packed into one folder. In your project:',
      `  ${packs.sdkInstall}    # the SDK, for your program`,
      `  ${packs.cliInstall}    # the happy-session command (its SDK and relay come from beside it)`,
      '',
    ].join('\n'),
  );
}
