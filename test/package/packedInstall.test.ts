import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskBytes, installScripts, installedPackages } from '../../scripts/installedTree.js';
import type { InstalledPackage } from '../../scripts/installedTree.js';
import { startRelay } from 'happy-session-relay';

/**
 * What users get: the three packages packed as `npm pack` makes them (its `prepack` builds), the
 * SDK installed alone into an empty project, then the relay, the CLI and a second copy of the SDK
 * beside it. Nothing here imports the sources.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const ENGINES_MINIMUM = '20.19.0';
/** Servers, databases and bundled binaries an agent that writes text must not pay for. */
const SERVER_SIDE = [
  'hono',
  '@hono/node-server',
  'socket.io',
  'better-sqlite3',
  '@ffmpeg-installer/ffmpeg',
  'tree-sitter-bash',
];

/** Flags added to the README's install lines: no network round trips a cached package needs, no reports. */
const QUIET = ['--prefer-offline', '--no-audit', '--no-fund', '--omit=dev'];

let work: string;
let project: string;
let cliProject: string;
let sdkInstallLine: string[];
let cliInstallLine: string[];
let helloOutputs: Record<string, string>;
const tarballs: Record<string, string> = {};
let sdkOnly: InstalledPackage[];
let withRelayAndCli: InstalledPackage[];

/** `name@version: range` of every package whose `engines.node` excludes {@link ENGINES_MINIMUM}. */
function needNewerNode(packages: InstalledPackage[]): string[] {
  return packages
    .filter((p) => p.engines?.node && !semver.satisfies(ENGINES_MINIMUM, p.engines.node))
    .map((p) => `${p.name}@${p.version}: ${p.engines!.node}`);
}

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return stdout;
}

async function node(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, args, { cwd: project });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'packed-install-'));
  // As the README's Install section says: `npm run pack:local`, then the lines it prints.
  const { stdout: printed } = await run('npm', ['run', '--silent', 'pack:local', '--', work], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const lines = printed.split('\n').filter((line) => /^\s*npm i /.test(line));
  sdkInstallLine = lines[0]!.replace(/#.*/, '').trim().split(/\s+/);
  cliInstallLine = lines[1]!.replace(/#.*/, '').trim().split(/\s+/);
  tarballs.sdk = sdkInstallLine.at(-1)!;
  tarballs.cli = cliInstallLine.at(-1)!;
  tarballs.relay = tarballs.sdk.replace(/happy-session-(\d)/, 'happy-session-relay-$1');
  project = join(work, 'project');
  mkdirSync(project, { recursive: true });
  await npm(['init', '-y'], project);
  await npm([...sdkInstallLine.slice(1), ...QUIET], project);
  sdkOnly = installedPackages(project);
  cliProject = join(work, 'cli-alone');
  mkdirSync(cliProject, { recursive: true });
  await npm(['init', '-y'], cliProject);
  // The install scripts are skipped for the reason given below (better-sqlite3).
  await npm([...cliInstallLine.slice(1), ...QUIET, '--ignore-scripts'], cliProject);
  reuseCompiledSqlite(cliProject);
  helloOutputs = await runReadmeHellos();
  const install = ['install', ...QUIET];
  // better-sqlite3's install script would compile its addon from source here (its prebuilt
  // binaries come from outside the npm registry): minutes on 2 cores, for a library this test is
  // not about. The same version's addon, compiled by the workspace's `npm ci`, is copied in instead.
  await npm(
    [
      ...install,
      '--ignore-scripts',
      tarballs.relay!,
      tarballs.cli!,
      `happy-session-copy@file:${tarballs.sdk!}`,
    ],
    project,
  );
  withRelayAndCli = installedPackages(project);
  reuseCompiledSqlite(project);
  for (const name of [
    'checkEntries.mjs',
    'checkEntries.cjs',
    'typedCodes.mts',
    'typedCodes.cts',
    'claudeAgentMissing.mjs',
  ]) {
    copyFileSync(join(FIXTURES, name), join(project, name));
  }
}, 900_000);

/**
 * Runs the README's two first programs (`// hello.mjs`, `// hello.cjs`) in the SDK-alone project,
 * against a relay, with a key the CLI-alone install's `happy-session keygen` made. Resolves with
 * what each printed.
 */
async function runReadmeHellos(): Promise<Record<string, string>> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const relay = await startRelay();
  const home = join(work, 'home');
  const env = { ...process.env, HAPPY_HOME_DIR: home, HAPPY_SERVER_URL: relay.url };
  const outputs: Record<string, string> = {};
  try {
    await run(join(cliProject, 'node_modules/.bin/happy-session'), ['keygen'], { cwd: cliProject, env });
    for (const name of ['hello.mjs', 'hello.cjs']) {
      const block = [...readme.matchAll(/```js\n(\/\/ (hello\.[cm]js)[^\n]*\n[\s\S]*?)```/g)].find(
        (match) => match[2] === name,
      );
      expect(block, `README block ${name}`).toBeDefined();
      writeFileSync(join(project, name), block![1]!);
      const { stdout } = await run(process.execPath, [name], { cwd: project, env });
      outputs[name] = stdout.trim();
    }
  } finally {
    await relay.close();
  }
  return outputs;
}

/** Copies the workspace's compiled better-sqlite3 addon into `project`, for the same version only. */
function reuseCompiledSqlite(project: string): void {
  const version = (dir: string): string =>
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const built = join(ROOT, 'node_modules/better-sqlite3');
  const installed = join(project, 'node_modules/better-sqlite3');
  expect(version(installed)).toBe(version(built));
  const addon = 'build/Release/better_sqlite3.node';
  mkdirSync(dirname(join(installed, addon)), { recursive: true });
  copyFileSync(join(built, addon), join(installed, addon));
}

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed SDK installed alone into an empty project', () => {
  it('holds dist/ (npm pack builds it)', async () => {
    const listing = await run('tar', ['-tzf', tarballs.sdk!]);
    expect(listing.stdout).toMatch(/package\/dist\/node\.js/);
    expect(listing.stdout).toMatch(/package\/dist\/tree-sitter-bash\.wasm/);
  });

  it('brings at most 40 production packages, no server, no SQLite, no install script', () => {
    const names = sdkOnly.map((p) => p.name);
    console.log('SDK install:', {
      packages: sdkOnly.length,
      megabytes: +(diskBytes(join(project, 'node_modules')) / 1e6).toFixed(1),
    });
    expect(sdkOnly.length).toBeLessThanOrEqual(40);
    for (const name of SERVER_SIDE) expect(names).not.toContain(name);
    expect(sdkOnly.flatMap((p) => installScripts(p).map((s) => `${p.name} ${s}`))).toEqual([]);
  });

  it(`needs no newer Node than its engines say (${ENGINES_MINIMUM})`, () => {
    expect(needNewerNode(sdkOnly)).toEqual([]);
  });
});

describe('installed from a checkout as the README says, into empty folders', () => {
  it('the README gives the SDK install the count this test measures', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`The SDK installs ${sdkOnly.length} packages`);
  });

  it("runs the README's first program, as an ES module and as CommonJS, in a project npm init made", () => {
    expect(helloOutputs['hello.mjs']).toMatch(/^session \S+$/);
    expect(helloOutputs['hello.cjs']).toMatch(/^session \S+$/);
  });

  it('the CLI installs alone (its SDK and relay from the tarballs beside it) and its command runs', async () => {
    const names = installedPackages(cliProject).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['happy-session', 'happy-session-relay', 'happy-session-cli']),
    );
    const { stdout } = await run(join(cliProject, 'node_modules/.bin/happy-session'), ['--help'], {
      cwd: cliProject,
    });
    for (const command of ['serve', 'send', 'stop', 'answer', 'attach', 'keygen'])
      expect(stdout).toContain(command);
  });
});

describe('every entry of the packed SDK, from ESM and from CommonJS', () => {
  const entryNames = [
    'happy-session',
    'happy-session/node',
    'happy-session/user',
    'happy-session/protocol',
    'happy-session/ports',
    'happy-session/redaction',
    'happy-session/permissions',
    'happy-session/media',
    'happy-session/sandbox',
    'happy-session/crypto',
    'happy-session/v1',
    'happy-session/internal',
  ];

  it('imports from ESM; an error from any entry, or from a second copy, passes the root isSdkError', async () => {
    const found = await node(['checkEntries.mjs']);
    expect(Object.keys(found.entries as object).sort()).toEqual([...entryNames].sort());
    for (const count of Object.values(found.entries as Record<string, number>))
      expect(count).toBeGreaterThan(0);
    const errors = found.errors as Record<string, { code: string; isSdkError: boolean; instanceOf: boolean }>;
    expect(errors).toEqual({
      'happy-session': { code: 'stream.invalid_message', isSdkError: true, instanceOf: true },
      'happy-session/node': { code: 'credentials.missing', isSdkError: true, instanceOf: true },
      'happy-session/permissions': {
        code: 'permissions.shell_unavailable',
        isSdkError: true,
        instanceOf: true,
      },
      'happy-session/media': { code: 'media.unreadable_path', isSdkError: true, instanceOf: true },
      'happy-session/sandbox': { code: 'sandbox.unavailable', isSdkError: true, instanceOf: true },
      'happy-session/crypto': { code: 'crypto.bad_key', isSdkError: true, instanceOf: true },
      'happy-session/internal': { code: 'transport.bad_response', isSdkError: true, instanceOf: true },
      'happy-session-copy/node': { code: 'credentials.missing', isSdkError: true, instanceOf: true },
    });
    // An adapter's entry without its framework (docs/integrations.md, "Installing").
    expect(found.adapters).toEqual({
      'happy-session/ai': { code: 'integration.framework_missing', hint: 'npm install ai', isSdkError: true },
      'happy-session/openai-agents': {
        code: 'integration.framework_missing',
        hint: 'npm install @openai/agents',
        isSdkError: true,
      },
    });
    // The parts loaded on first use load from the installed package.
    expect(found.shellCommands).toBe(2);
    expect(found.photo).toEqual({ kind: 'photo', width: 1, thumbhash: 'string' });
    // The program's own zod composes with the SDK's bundled one.
    expect(found.ownZod).toEqual({ instanceOf: true, refused: true });
    // Importing happy-session/node made records seal with node:crypto (docs/crypto.md).
    expect(found.cipher).toBe('node:crypto');
    // tweetnacl loads on first use, not at import (docs/performance.md).
    expect(found.nacl).toEqual({ atImport: false, afterFirstUse: true, publicKeyBytes: 32 });
    // The SDK's zod/mini schemas speak English before any other zod is loaded.
    expect(found.english).toBe(
      'Invalid turn-start message: turn: Invalid input: expected string, received undefined',
    );
  });

  it('the Claude Agent adapter, imported without its framework, says what to install', async () => {
    expect(await node(['claudeAgentMissing.mjs'])).toEqual({
      isSdkError: true,
      code: 'integration.framework_missing',
      hint: 'npm install @anthropic-ai/claude-agent-sdk',
    });
  });

  it('requires from CommonJS, as the same modules an import gets', async () => {
    const found = await node(['checkEntries.cjs']);
    expect(Object.keys(found.entries as object).sort()).toEqual([...entryNames].sort());
    expect(found.errors).toEqual({
      'happy-session/node': { code: 'credentials.missing', isSdkError: true, instanceOf: true },
      'happy-session/crypto': { code: 'crypto.bad_key', isSdkError: true, instanceOf: true },
      'happy-session/ai': { code: 'integration.framework_missing', isSdkError: true, instanceOf: true },
      'happy-session/openai-agents': {
        code: 'integration.framework_missing',
        isSdkError: true,
        instanceOf: true,
      },
      'happy-session-copy/node': { code: 'credentials.missing', isSdkError: true, instanceOf: true },
    });
    expect(found.sameModuleAsImport).toBe(true);
  });

  it('types its error codes: a misspelt code does not compile, from ESM or CommonJS TypeScript', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files: ['typedCodes.mts', 'typedCodes.cts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (e: { stdout: string }) => e,
    );
    expect(result.stdout).toBe('');
    // tsc checks the packages' declarations and their dependencies' (skipLibCheck off): up to a
    // minute on a loaded 2-core machine.
  }, 180_000);
});

describe('the packed relay and CLI beside it', () => {
  it(`need no newer Node than their engines say (${ENGINES_MINIMUM}), with no override in force`, () => {
    const names = withRelayAndCli.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['happy-session-relay', 'happy-session-cli', 'hono']));
    expect(needNewerNode(withRelayAndCli)).toEqual([]);
  });

  it('the relay starts from its package and its viewer is built in', async () => {
    const script =
      "const { startRelay } = await import('happy-session-relay'); const r = await startRelay(); const page = await fetch(r.url + '/'); console.log(JSON.stringify({ status: page.status, html: (await page.text()).includes('viewer/app.js') })); await r.close();";
    expect(await node(['--input-type=module', '-e', script])).toEqual({ status: 200, html: true });
  });

  it('the happy-session command runs from its bin', async () => {
    const { stdout } = await run(join(project, 'node_modules/.bin/happy-session'), ['--help'], {
      cwd: project,
    });
    expect(stdout).toMatch(/serve/);
    expect(stdout).toMatch(/demo/);
  });
});
