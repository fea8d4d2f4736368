import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { INTERNAL_ENTRY, SDK_ENTRIES } from '../../scripts/sdkEntries.js';

/**
 * The public surface as the committed API reports record it (packages/sdk/api/, written by
 * `npm run api` from the build; CI fails when they differ from it) and as docs/api.md lists it.
 * Each name is exported from exactly one entry, the root stays small, the permissions entry holds
 * the gate and the policy's API but not its helpers, and no exported class has an `@internal`
 * member (what the SDK's own parts need goes through narrow module-level functions instead).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API = join(ROOT, 'packages/sdk/api/');
const DECLARATION =
  /^export (?:declare )?(?:abstract )?(?:class|function|const|let|type|interface|enum|namespace) (\w+)/gm;

const reports = Object.fromEntries(
  readdirSync(API)
    .filter((file) => file.endsWith('.api.md'))
    .map((file) => {
      const text = readFileSync(join(API, file), 'utf8');
      return [file.replace('.api.md', ''), [...new Set([...text.matchAll(DECLARATION)].map((m) => m[1]!))]];
    }),
);
const reportOf = (entry: string): string[] => reports[entry.replace('/', '-')]!;

/** The backquoted names docs/api.md lists under each entry's heading. */
function documentedNames(): Map<string, Set<string>> {
  const doc = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const sections = new Map<string, Set<string>>();
  for (const section of doc.split(/^## /m).slice(1)) {
    const [heading, ...body] = section.split('\n');
    // The page's other sections (the naming table) are not an entry's names.
    if (!heading!.startsWith('happy-session')) continue;
    sections.set(heading!.trim(), new Set([...body.join('\n').matchAll(/`(\w+)`/g)].map((m) => m[1]!)));
  }
  return sections;
}

/** `Class.member` for each non-private member of an exported class in `text` whose doc comment has `@internal`. */
function internalMembers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || !statement.name) continue;
    if (!ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    for (const member of statement.members) {
      const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
      if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) continue;
      if (ts.getJSDocTags(member).some((tag) => tag.tagName.text === 'internal'))
        found.push(`${statement.name.text}.${member.name?.getText(source) ?? 'constructor'}`);
    }
  }
  return found;
}

function sdkSources(dir = join(ROOT, 'packages/sdk/src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sdkSources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the SDK public surface', () => {
  it('has a report for every entry point', () => {
    expect(Object.keys(reports).sort()).toEqual(SDK_ENTRIES.map((e) => e.name.replace('/', '-')).sort());
  });

  it('exports each name from exactly one entry', () => {
    const owners = new Map<string, string[]>();
    for (const [entry, names] of Object.entries(reports)) {
      for (const name of names) owners.set(name, [...(owners.get(name) ?? []), entry]);
    }
    expect([...owners].filter(([, entries]) => entries.length > 1)).toEqual([]);
  });

  it('keeps the root under 80 names, with no Node type in it', () => {
    expect(reportOf('happy-session').length).toBeGreaterThan(40);
    expect(reportOf('happy-session').length).toBeLessThan(80);
    expect(readFileSync(join(API, 'happy-session.api.md'), 'utf8')).not.toMatch(/\bNodeJS\./);
  });

  it('keeps all public entries together under 400 names, the internal entry not among them', () => {
    const total = Object.values(reports).reduce((n, names) => n + names.length, 0);
    expect(total).toBeGreaterThan(200);
    expect(total).toBeLessThan(400);
    expect(Object.keys(reports)).not.toContain(INTERNAL_ENTRY.name.replace('/', '-'));
  });

  it('keeps helpers and what only the relay and the CLI use out of every public entry', () => {
    const published = new Set(Object.values(reports).flat());
    for (const name of [
      'expectShape',
      'assertLength',
      'formatShownBy',
      'TailCheckPacer',
      'ledgerOf',
      'analyticsId',
      'callSessionRpc',
      'HappyHttp',
      'mintToken',
      'RELAY_INFO_PATH',
    ])
      expect({ name, published: published.has(name) }).toEqual({ name, published: false });
    // Positive control: a name the relay's viewer uses that users use too stays public.
    expect(published.has('decryptRecord')).toBe(true);
  });

  it('lists every name of every entry in docs/api.md, under that entry', () => {
    const documented = documentedNames();
    expect([...documented.keys()]).toEqual(SDK_ENTRIES.map((e) => e.name));
    for (const { name } of SDK_ENTRIES) {
      expect({ entry: name, missing: reportOf(name).filter((n) => !documented.get(name)!.has(n)) }).toEqual({
        entry: name,
        missing: [],
      });
    }
  });

  it('keeps crypto primitives and v1 schemas out of the root', () => {
    const root = reportOf('happy-session');
    for (const name of ['encryptRecord', 'decryptRecord', 'encryptBlob']) {
      expect(root).not.toContain(name);
      expect(reportOf('happy-session/crypto')).toContain(name);
    }
    expect(root.filter((name) => name.startsWith('V1'))).toEqual([]);
    expect(reportOf('happy-session/v1')).toContain('createV1Encoder');
  });

  it('holds in the root what an integrator writes and reads a stream with', () => {
    expect(reportOf('happy-session')).toEqual(
      expect.arrayContaining([
        'SessionWriter',
        'Turn',
        'ToolCall',
        'Scope',
        'SessionReader',
        'fold',
        'SessionMessageSchema',
        'SessionMessage',
        'SdkError',
        'isSdkError',
        'SdkErrorCode',
        'MemoryTransport',
      ]),
    );
  });

  it('holds in happy-session/permissions the gate and the policy API, not the policy helpers', () => {
    const permissions = reportOf('happy-session/permissions');
    expect(permissions).toEqual(
      expect.arrayContaining([
        'PermissionGate',
        'AnswerErrorCode',
        'evaluatePolicy',
        'parseRule',
        'loadShellParser',
      ]),
    );
    for (const helper of [
      'decodeAnsiC',
      'stripBlanks',
      'matchWords',
      'ruleWords',
      'globToRegExp',
      'baseName',
      'executedCommands',
      'matchCallRule',
      'PendingRequest',
      'SessionRuleStore',
    ])
      expect(permissions).not.toContain(helper);
  });

  it('finds an @internal member of an exported class (the check works)', () => {
    const text = `export class Pipeline {\n  /** @internal the writer calls it. */\n  closing(): void {}\n  /** @internal */\n  private kept(): void {}\n}\nclass Inner {\n  /** @internal */\n  x(): void {}\n}`;
    expect(internalMembers('fixture.ts', text)).toEqual(['Pipeline.closing']);
  });

  it('has no exported class with an @internal member', () => {
    const files = sdkSources();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => internalMembers(file, readFileSync(file, 'utf8')))).toEqual([]);
  });
});
