import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM and CommonJS, with type declarations for both.
    entry: {
      index: 'src/index.ts',
      node: 'src/transport/node.ts',
      permissions: 'src/permissions/index.ts',
      media: 'src/media/index.ts',
      relay: 'src/relay/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: false,
    // Native and WebAssembly packages stay external; tree-sitter's grammar is read from its package.
    external: ['better-sqlite3', 'sharp', 'web-tree-sitter', 'tree-sitter-bash'],
  },
  {
    // The command line program: ESM only.
    entry: { 'cli/main': 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    splitting: false,
  },
]);
