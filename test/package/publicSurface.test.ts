import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The public surface as the committed API reports record it (packages/sdk/api/, written by
 * `npm run api` from the build; CI fails when they differ from it). Each name is exported from
 * exactly one entry, and the root holds what an integrator writes and reads a stream with.
 */
const API = fileURLToPath(new URL('../../packages/sdk/api/', import.meta.url));
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

describe('the SDK public surface', () => {
  it('has a report for every entry point', () => {
    expect(Object.keys(reports).sort()).toEqual(
      ['', '-claude-agent', '-crypto', '-media', '-node', '-permissions', '-sandbox', '-v1', '-wire']
        .map((s) => `happy-session${s}`)
        .sort(),
    );
  });

  it('exports each name from exactly one entry', () => {
    const owners = new Map<string, string[]>();
    for (const [entry, names] of Object.entries(reports)) {
      for (const name of names) owners.set(name, [...(owners.get(name) ?? []), entry]);
    }
    expect([...owners].filter(([, entries]) => entries.length > 1)).toEqual([]);
  });

  it('keeps crypto primitives and v1 schemas out of the root', () => {
    const root = reports['happy-session']!;
    for (const name of [
      'encryptRecord',
      'decryptRecord',
      'deriveKey',
      'secretboxSeal',
      'aesGcmSeal',
      'encryptBlob',
    ]) {
      expect(root).not.toContain(name);
      expect(reports['happy-session-crypto']).toContain(name);
    }
    expect(root.filter((name) => name.startsWith('V1'))).toEqual([]);
    expect(reports['happy-session-v1']).toContain('createV1Encoder');
  });

  it('holds in the root what an integrator writes and reads a stream with', () => {
    expect(reports['happy-session']).toEqual(
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
});
