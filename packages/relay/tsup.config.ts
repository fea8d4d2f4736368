import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  tsconfig: 'tsconfig.build.json',
  format: ['esm'],
  splitting: true,
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
