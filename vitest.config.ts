import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string): string => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

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
      { find: /^happy-session\/permissions$/, replacement: source('sdk/src/permissions/index.ts') },
      { find: /^happy-session\/media$/, replacement: source('sdk/src/media/index.ts') },
      { find: /^happy-session\/sandbox$/, replacement: source('sdk/src/sandbox/index.ts') },
      { find: /^happy-session\/crypto$/, replacement: source('sdk/src/crypto/index.ts') },
      { find: /^happy-session\/v1$/, replacement: source('sdk/src/protocol/v1/index.ts') },
      { find: /^happy-session\/wire$/, replacement: source('sdk/src/wire/index.ts') },
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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
