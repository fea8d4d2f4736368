import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_ENTRY, SDK_ENTRIES } from '../../scripts/sdkEntries.js';

/**
 * The floors of the SDK and the borders between the packages, as `npm run lint` checks them with
 * dependency-cruiser (.dependency-cruiser.cjs). The real tree is clean; a tree made for the test
 * shows that each rule catches the import it forbids and lets the allowed ones pass.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

async function cruise(cwd: string, paths: string[]): Promise<Violation[]> {
  const args = [DEPCRUISE, ...paths, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'];
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout: string }) => error,
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('the real tree', () => {
  it('has no import that breaks a floor or a package border', async () => {
    expect(await cruise(ROOT, ['packages'])).toEqual([]);
  }, 60_000);
});

/**
 * The statements an entry file may hold: re-exports (`export { … } from`, `export type { … } from`),
 * comments, and the import and call of one set-up function (`node.ts` installs Node's platform, an
 * adapter's entry checks its framework is installed). Entries are exempt
 * from the floors (docs/architecture.md, "Floors of the SDK") because they hold nothing else.
 */
function codeInEntry(text: string): string[] {
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const statements = withoutComments
    .split(';')
    .map((s) => s.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
  const setups = statements.flatMap((s) => /^import \{ (\w+) \} from '[^']+'$/.exec(s)?.[1] ?? []);
  return statements.filter(
    (s) =>
      !/^export (type )?\{[^}]*\} from '[^']+'$/.test(s) &&
      !/^import \{ \w+ \} from '[^']+'$/.test(s) &&
      !setups.some((name) => s.startsWith(`${name}(`) && s.endsWith(')')),
  );
}

describe('entry files only re-export', () => {
  it('holds no code of its own in any entry file, the internal entry included', () => {
    const sources = [...SDK_ENTRIES, INTERNAL_ENTRY].map(({ source }) => source);
    expect(sources).toContain('internal.ts');
    for (const source of sources) {
      const text = readFileSync(join(ROOT, 'packages/sdk/src', source), 'utf8');
      expect({ source, code: codeInEntry(text) }).toEqual({ source, code: [] });
    }
  });

  it('finds a function written in an entry file (the check works)', () => {
    const text =
      "// Reading.\nexport { fold } from './stream/fold.js';\nexport function helper(): number {\n  return 1;\n}\n";
    expect(codeInEntry(text)).toEqual(['export function helper(): number { return 1', '}']);
  });
});

// The cases run side by side (each is its own dependency-cruiser process, mostly start-up), each on
// files of its own in the shared tree; the bound is for a busy machine, not a speed check.
describe.concurrent('each rule, on a tree made for the test', { timeout: 120_000 }, () => {
  let tree: string;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  };
  const manifest = (name: string, dependencies: Record<string, string> = {}): string =>
    JSON.stringify({ name, version: '0.0.0', type: 'module', dependencies });
  const sdk = (path: string): string => `packages/sdk/src/${path}`;
  /** A file that imports `target` (a path relative to it, or a package name). */
  const importer = (target: string): string =>
    `import * as imported from '${target}';\nexport const used = imported;\n`;

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'layers-'));
    copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(tree, '.dependency-cruiser.cjs'));
    write(
      'tsconfig.json',
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
    );
    write('packages/sdk/package.json', manifest('happy-session', { rxjs: '0.0.0' }));
    write(
      'node_modules/rxjs/package.json',
      JSON.stringify({ name: 'rxjs', version: '0.0.0', main: 'index.js' }),
    );
    write('node_modules/rxjs/index.js', 'export const x = 1;\n');
    write('packages/relay/package.json', manifest('happy-session-relay'));
    write('packages/cli/package.json', manifest('happy-session-cli', { 'happy-session': '0.0.0' }));
    for (const file of [
      'errors.ts',
      'index.ts',
      'node.ts',
      'protocol/message.ts',
      'crypto/box.ts',
      'wire/shapes.ts',
    ]) {
      write(sdk(file), 'export const x = 1;\n');
    }
    for (const file of [
      'policy/rules.ts',
      'ports/transport.ts',
      'stream/writer.ts',
      'gate/gate.ts',
      'media/attach.ts',
    ]) {
      write(sdk(file), 'export const x = 1;\n');
    }
    for (const file of ['transport/http.ts', 'session/connect.ts']) write(sdk(file), 'export const x = 1;\n');
    write(sdk('integrations/claudeAgent/mirror.ts'), 'export const x = 1;\n');
    write('packages/relay/src/server.ts', 'export const x = 1;\n');
    write('packages/cli/src/main.ts', 'export const x = 1;\n');
  });
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it.each([
    ['ground-imports-nothing-above', sdk('logger.ts'), './stream/writer.js'],
    ['protocol-imports-only-downwards', sdk('protocol/bad.ts'), '../crypto/box.js'],
    ['crypto-imports-only-downwards', sdk('crypto/bad.ts'), '../ports/transport.js'],
    ['wire-imports-only-downwards', sdk('wire/bad.ts'), '../stream/writer.js'],
    ['ports-imports-only-downwards', sdk('ports/bad.ts'), '../stream/writer.js'],
    ['policy-imports-only-downwards', sdk('policy/bad.ts'), '../gate/gate.js'],
    ['policy-imports-only-downwards', sdk('policy/bad2.ts'), '../stream/writer.js'],
    ['policy-is-pure', sdk('policy/bad3.ts'), 'rxjs'],
    ['policy-reads-only-the-filesystem', sdk('policy/bad4.ts'), 'node:child_process'],
    ['stream-imports-only-downwards', sdk('stream/bad.ts'), '../gate/gate.js'],
    ['stream-imports-only-downwards', sdk('stream/bad2.ts'), '../transport/http.js'],
    ['gate-imports-only-downwards', sdk('gate/bad.ts'), '../media/attach.js'],
    ['media-imports-only-downwards', sdk('media/bad.ts'), '../gate/gate.js'],
    ['transport-imports-only-downwards', sdk('transport/bad.ts'), '../session/connect.js'],
    ['session-imports-only-downwards', sdk('session/bad3.ts'), '../integrations/claudeAgent/mirror.js'],
    ['no-entry-from-inside', sdk('session/bad.ts'), '../node.js'],
    ['sdk-through-its-entries', 'packages/cli/src/bad.ts', '../../sdk/src/stream/writer.js'],
    ['sdk-knows-no-relay-or-cli', sdk('session/bad2.ts'), '../../../relay/src/server.js'],
    ['relay-knows-no-cli', 'packages/relay/src/bad.ts', '../../cli/src/main.js'],
    ['declared-dependencies-only', 'packages/relay/src/bad2.ts', 'left-pad'],
  ])('%s: %s importing %s is refused', async (rule, file, target) => {
    write(file, importer(target));
    try {
      const violations = await cruise(tree, [file]);
      expect(violations.map((v) => [v.rule.name, v.from])).toEqual([[rule, file]]);
    } finally {
      rmSync(join(tree, file));
    }
  });

  it('no-circular: two files that import each other are refused, a type-only import included', async () => {
    const [a, b] = [sdk('stream/callA.ts'), sdk('stream/scopeB.ts')];
    write(a, "import type { B } from './scopeB.js';\nexport interface A { readonly b: B }\n");
    write(b, importer('./callA.js'));
    try {
      const violations = await cruise(tree, [a, b]);
      expect(violations.length).toBeGreaterThan(0);
      for (const v of violations) {
        expect(v.rule.name).toBe('no-circular');
        expect([a, b]).toContain(v.from);
      }
    } finally {
      rmSync(join(tree, a));
      rmSync(join(tree, b));
    }
  });

  it('allowed: a chain of imports that does not come back', async () => {
    const [a, b] = [sdk('stream/chainA.ts'), sdk('stream/chainB.ts')];
    write(a, "import type { B } from './chainB.js';\nexport interface A { readonly b: B }\n");
    write(b, 'export interface B { readonly name: string }\n');
    try {
      expect(await cruise(tree, [a, b])).toEqual([]);
    } finally {
      rmSync(join(tree, a));
      rmSync(join(tree, b));
    }
  });

  it.each([
    [sdk('ports/ok.ts'), '../protocol/message.js'],
    [sdk('stream/ok.ts'), '../ports/transport.js'],
    [sdk('policy/ok.ts'), '../protocol/message.js'],
    [sdk('policy/ok2.ts'), 'node:fs'],
    [sdk('gate/ok.ts'), '../stream/writer.js'],
    [sdk('gate/ok2.ts'), '../policy/rules.js'],
    [sdk('media/ok.ts'), '../wire/shapes.js'],
    [sdk('transport/ok.ts'), '../media/attach.js'],
    [sdk('session/ok.ts'), '../transport/http.js'],
    [sdk('protocol/ok.ts'), '../errors.js'],
    ['packages/cli/src/ok.ts', '../../sdk/src/node.js'],
  ])('allowed: %s importing %s', async (file, target) => {
    write(file, importer(target));
    try {
      expect(await cruise(tree, [file])).toEqual([]);
    } finally {
      rmSync(join(tree, file));
    }
  });
});
