import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts' },
  tsconfig: 'tsconfig.build.json',
  format: ['esm'],
  splitting: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
