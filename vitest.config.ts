import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // The examples import the package by its name, as a user would; in this repository that name
  // means the sources (tsconfig.json "paths" does the same for tsc and tsx).
  resolve: {
    alias: [
      { find: /^happy-session$/, replacement: src('index.ts') },
      { find: /^happy-session\/node$/, replacement: src('transport/node.ts') },
      { find: /^happy-session\/permissions$/, replacement: src('permissions/index.ts') },
      { find: /^happy-session\/media$/, replacement: src('media/index.ts') },
      { find: /^happy-session\/relay$/, replacement: src('relay/index.ts') },
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
