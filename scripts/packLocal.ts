// Install without a registry: packs the three packages (their `prepack` builds them) into one
// folder, so that `npm i <folder>/<tarball>` installs any of them from a checkout. The relay's and
// the CLI's dependencies on the SDK (and the CLI's on the relay) are pointed at the sibling
// tarballs (`file:./happy-session-0.1.0.tgz`), which npm resolves beside the tarball being
// installed: the CLI installs alone. `npm run pack:local [-- <folder>]` prints the install lines.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Workspace folder of each package, in the order they depend on each other. */
const FOLDERS = { sdk: 'packages/sdk', relay: 'packages/relay', cli: 'packages/cli' } as const;
type Part = keyof typeof FOLDERS;

/** What {@link packLocal} made: the absolute path of each tarball, and the lines to install them. */
export interface LocalPacks {
  readonly tarballs: Readonly<Record<Part, string>>;
  /** `npm i <sdk tarball>`: the SDK, for a program. */
  readonly sdkInstall: string;
  /** `npm i <cli tarball>`: the `happy-session` command, its SDK and relay from beside it. */
  readonly cliInstall: string;
}

/** Packs the SDK, the relay and the CLI into `folder` (made if missing) and says how to install them. */
export async function packLocal(folder: string): Promise<LocalPacks> {
  const destination = resolve(folder);
  mkdirSync(destination, { recursive: true });
  const packed = {} as Record<Part, { name: string; file: string }>;
  for (const part of Object.keys(FOLDERS) as Part[]) {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
      cwd: join(ROOT, FOLDERS[part]),
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    // The prepack build prints before npm's JSON: the JSON is the last thing on stdout.
    const [entry] = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as Array<{
      name: string;
      filename: string;
    }>;
    packed[part] = { name: entry!.name, file: entry!.filename };
  }
  const siblings = Object.fromEntries(
    Object.values(packed).map(({ name, file }) => [name, `file:./${file}`]),
  ) as Record<string, string>;
  for (const part of ['relay', 'cli'] as const) {
    await pointAtSiblings(join(destination, packed[part].file), siblings);
  }
  const tarballs = {
    sdk: join(destination, packed.sdk.file),
    relay: join(destination, packed.relay.file),
    cli: join(destination, packed.cli.file),
  };
  return { tarballs, sdkInstall: `npm i ${tarballs.sdk}`, cliInstall: `npm i ${tarballs.cli}` };
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
  const packs = await packLocal(process.argv[2] ?? join(ROOT, 'packs'));
  process.stdout.write(
    [
      'Packed into one folder. In your project:',
      `  ${packs.sdkInstall}    # the SDK, for your program`,
      `  ${packs.cliInstall}    # the happy-session command (its SDK and relay come from beside it)`,
      '',
    ].join('\n'),
  );
}
