import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig } from 'tsup';

export default defineConfig({
  // One ESM build with shared chunks: each class exists once however many entries a program
  // imports, so `instanceof` and the error brand agree across entries. CommonJS programs load it
  // with require(esm), which every Node version of `engines` has.
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    user: 'src/user.ts',
    protocol: 'src/protocol/index.ts',
    ports: 'src/ports/index.ts',
    redaction: 'src/redaction.ts',
    permissions: 'src/permissions.ts',
    media: 'src/media/index.ts',
    sandbox: 'src/sandbox/index.ts',
    crypto: 'src/crypto/index.ts',
    v1: 'src/protocol/v1/index.ts',
    // Not public: what the relay, the CLI and the tests share with the SDK (src/internal.ts).
    internal: 'src/internal.ts',
    ai: 'src/integrations/ai/index.ts',
    'openai-agents': 'src/integrations/openaiAgents/index.ts',
    'claude-agent': 'src/integrations/claudeAgent/index.ts',
    // How tweetnacl is loaded: on Node with `require` on first use, in a browser bundle statically.
    // Two files of their own, so the package's `browser` field can swap one for the other.
    naclLoader: 'src/crypto/naclLoader.ts',
    'naclLoader.browser': 'src/crypto/naclLoader.browser.ts',
  },
  tsconfig: 'tsconfig.build.json',
  format: ['esm'],
  splitting: true,
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // rxjs's Node entry is its CommonJS build, which loads every operator (about 100 ms); its ES
  // build is bundled instead, so only the operators the SDK uses load. rxjs stays a dependency:
  // the types name it, and a program's own rxjs works with the SDK's Observables.
  // zod's ES build (about 95 files) is bundled for the same reason: one chunk parses in about half
  // the time the module loader needs for a hundred files (docs/performance.md). It stays a
  // dependency: the declarations name its types, and zod v4 recognises its schemas by their traits,
  // not by which copy made them, so a program's own zod composes with the SDK's (the packed-install
  // test checks it). tweetnacl, a CommonJS package, stays external: an ES bundle cannot hold its
  // require() calls; it loads on first use (src/crypto/naclLoader.ts).
  noExternal: ['rxjs', 'zod'],
  esbuildPlugins: [
    {
      // zod's namespace re-exports every message locale (about half of its 750 KB). The SDK's
      // bundled copy is private (programs use their own zod for their own messages) and speaks
      // English only, so its locales index holds `en` alone.
      name: 'zod-english-only',
      setup(build) {
        build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
          /[\\/]zod[\\/]/.test(args.importer)
            ? { path: join(dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' }
            : undefined,
        );
        build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
          contents: `export { default as en } from ${JSON.stringify(args.path)};`,
          resolveDir: dirname(args.path),
        }));
      },
    },
    {
      // The chunks import the loader by its file name rather than bundle it, for the same reason.
      name: 'nacl-loader-apart',
      setup(build) {
        build.onResolve({ filter: /^\.\/naclLoader\.js$/ }, (args) =>
          args.importer.endsWith('nacl.ts') ? { path: './naclLoader.js', external: true } : undefined,
        );
      },
    },
    {
      name: 'rxjs-es-build',
      setup(build) {
        const root = dirname(createRequire(import.meta.url).resolve('rxjs/package.json'));
        build.onResolve({ filter: /^rxjs$/ }, () => ({ path: join(root, 'dist/esm/index.js') }));
      },
    },
  ],
  // The Bash grammar ships beside the code, so the shell parser needs no install script.
  onSuccess: async () => {
    const grammar = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    copyFileSync(grammar, 'dist/tree-sitter-bash.wasm');
  },
});
