import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * What lint lets a test import (eslint.config.js; docs/architecture.md, "Tests and the entries"):
 * an entry by its name, never by its file's path; a module's internals by its path, except in the
 * shared helpers, which serve behaviour tests. Examples and their tests import the packages by name only.
 */
const eslint = new ESLint({ cwd: fileURLToPath(new URL('../../', import.meta.url)) });

async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('imports in tests', () => {
  it.each([
    ['../../packages/sdk/src/index.js'],
    ['../../packages/sdk/src/node.js'],
    ['../../packages/sdk/src/permissions.js'],
    ['../../../packages/sdk/src/protocol/v1/index.js'],
    ['../../packages/sdk/src/integrations/claudeAgent/index.js'],
    ['../../packages/relay/src/index.js'],
  ])('refuses the path of an entry file, %s, type-only imports included', async (path) => {
    const code = `import { a } from '${path}';\nimport type { B } from '${path}';\nexport const c: B = a;\n`;
    expect(await refusals('test/stream/example.test.ts', code)).toEqual([
      expect.stringContaining("Import the entry by its name ('happy-session'"),
      expect.stringContaining("Import the entry by its name ('happy-session'"),
    ]);
  });

  it("lets a unit test import a module's internals by its path, and anyone import the entries", async () => {
    const code = [
      "import { Outbox } from '../../packages/sdk/src/stream/outbox.js';",
      "import { openDatabase } from '../../packages/relay/src/db.js';",
      "import { SessionWriter } from 'happy-session';",
      "import { connect } from 'happy-session/node';",
      "import { startRelay } from 'happy-session-relay';",
      'export const all = [Outbox, openDatabase, SessionWriter, connect, startRelay];',
      '',
    ].join('\n');
    expect(await refusals('test/stream/example.test.ts', code)).toEqual([]);
  });

  it('refuses any path into the sources in the shared helpers', async () => {
    const code = [
      "import { Outbox } from '../../packages/sdk/src/stream/outbox.js';",
      "import type { RelayDatabase } from '../../packages/relay/src/db.js';",
      "import { SessionWriter } from 'happy-session';",
      'export const all: [unknown, RelayDatabase | undefined] = [[Outbox, SessionWriter], undefined];',
      '',
    ].join('\n');
    expect(await refusals('test/helpers/example.ts', code)).toEqual([
      expect.stringContaining("'../../packages/sdk/src/stream/outbox.js' import is restricted"),
      expect.stringContaining("'../../packages/relay/src/db.js' import is restricted"),
    ]);
    expect(await refusals('test/helpers/example.ts', code)).toEqual([
      expect.stringContaining('The shared helpers serve behaviour tests: import the entries'),
      expect.stringContaining('The shared helpers serve behaviour tests: import the entries'),
    ]);
  });

  it('refuses any path into the SDK or the relay in an example or its test, and lets it import by name', async () => {
    const refused = [
      "import { fold } from '../../packages/sdk/src/index.js';",
      "import type { RecordKey } from '../../packages/sdk/src/crypto/records.js';",
      "import { viewerUrl } from '../../packages/relay/src/viewer/url.js';",
      'export const all: [unknown, RecordKey | undefined] = [[fold, viewerUrl], undefined];',
      '',
    ].join('\n');
    const [result] = await eslint.lintText(refused, { filePath: 'examples/pipeline/pipeline.test.ts' });
    const lines = result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line);
    expect([...new Set(lines)]).toEqual([1, 2, 3]);
    // Positive control: the same names by the packages' names, and the repository's test helpers.
    const allowed = [
      "import { fold } from 'happy-session';",
      "import type { RecordKey } from 'happy-session/crypto';",
      "import { viewerUrl } from 'happy-session-relay';",
      "import { tempDir } from '../../test/transport/helpers.js';",
      'export const all: [unknown, RecordKey | undefined] = [[fold, viewerUrl, tempDir], undefined];',
      '',
    ].join('\n');
    expect(await refusals('examples/pipeline/pipeline.test.ts', allowed)).toEqual([]);
  });
});
