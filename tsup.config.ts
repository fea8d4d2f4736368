import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM and CommonJS, with type declarations for both.
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: false,
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
