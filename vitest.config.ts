import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

const source = (path: string): string => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

/**
 * The files that take longest, longest first. They start before all others, so that none of them is
 * left running alone at the end. Vitest orders by the durations of the last run where it has them
 * (node_modules/.vite), by file size in a fresh clone, which would start some of these last.
 */
const SLOW_FIRST = [
  'test/package/packedInstall.test.ts',
  'test/cli/loop.test.ts',
  'test/permissions/gate/race.test.ts',
  'test/layers/layers.test.ts',
  'test/media/fit.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const at = SLOW_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at === -1 ? SLOW_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the others keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  // The examples and the CLI import the packages by their names, as a user would; in this
  // repository those names mean the sources (tsconfig.json "paths" does the same for tsc and tsx).
  // The packed packages themselves are tested by test/package/packedInstall.test.ts.
  resolve: {
    alias: [
      { find: /^happy-session$/, replacement: source('sdk/src/index.ts') },
      { find: /^happy-session\/node$/, replacement: source('sdk/src/node.ts') },
      { find: /^happy-session\/user$/, replacement: source('sdk/src/user.ts') },
      { find: /^happy-session\/protocol$/, replacement: source('sdk/src/protocol/index.ts') },
      { find: /^happy-session\/ports$/, replacement: source('sdk/src/ports/index.ts') },
      { find: /^happy-session\/redaction$/, replacement: source('sdk/src/redaction.ts') },
      { find: /^happy-session\/permissions$/, replacement: source('sdk/src/permissions.ts') },
      { find: /^happy-session\/media$/, replacement: source('sdk/src/media/index.ts') },
      { find: /^happy-session\/sandbox$/, replacement: source('sdk/src/sandbox/index.ts') },
      { find: /^happy-session\/crypto$/, replacement: source('sdk/src/crypto/index.ts') },
      { find: /^happy-session\/v1$/, replacement: source('sdk/src/protocol/v1/index.ts') },
      { find: /^happy-session\/internal$/, replacement: source('sdk/src/internal.ts') },
      { find: /^happy-session\/ai$/, replacement: source('sdk/src/integrations/ai/index.ts') },
      {
        find: /^happy-session\/openai-agents$/,
        replacement: source('sdk/src/integrations/openaiAgents/index.ts'),
      },
      {
        find: /^happy-session\/claude-agent$/,
        replacement: source('sdk/src/integrations/claudeAgent/index.ts'),
      },
      { find: /^happy-session-relay$/, replacement: source('relay/src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Bounds on a hung test, never speed checks: with four files at a time on 2 cores, a test that
    // starts a few processes (the CLI's tests) took over 30 s on a busy machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Four files at a time. Vitest's default is one fewer than the cores, which is one on a 2-core
    // machine; most files spend their time waiting on a relay, a socket or a child process.
    maxWorkers: 4,
    sequence: { sequencer: SlowFirst },
    reporters: ['default'],
  },
});
