// Builds the relay's web viewer (src/relay/viewer/page/) into dist/viewer/: index.html, app.js,
// app.css. `npm run build` runs it after tsup; the relay, run from source, calls buildViewer()
// itself (see src/relay/viewer/assets.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions, Plugin } from 'esbuild';
import { VIEWER_FILES } from '../src/viewer/assets.js';
import type { ViewerAsset, ViewerAssets } from '../src/viewer/assets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pageDir = join(root, 'src/viewer/page');

/**
 * Where the SDK's sources are bundled (tests and a relay run from source resolve `happy-session`
 * to them through tsconfig `paths`), the browser's tweetnacl loader replaces the Node one, as the
 * SDK package's `browser` field does for its built files (docs/crypto.md).
 */
export const sdkSourcesForBrowser: Plugin = {
  name: 'sdk-sources-for-browser',
  setup(build) {
    build.onResolve({ filter: /^\.\/naclLoader\.js$/ }, (args) =>
      /[\\/]sdk[\\/]src[\\/]crypto[\\/]nacl\.ts$/.test(args.importer)
        ? { path: join(dirname(args.importer), 'naclLoader.browser.ts') }
        : undefined,
    );
  },
};

/**
 * The esbuild options of the page bundle. `platform: 'browser'` without Node polyfills makes any
 * Node built-in that reaches the page (`node:fs`, `crypto`, ...) a build error: the viewer may only
 * use the SDK's browser-safe root export.
 */
export function viewerBuildOptions(): BuildOptions {
  return {
    entryPoints: { app: join(pageDir, 'main.ts') },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
    outdir: 'viewer',
    write: false,
    logLevel: 'silent',
    plugins: [sdkSourcesForBrowser],
  };
}

/** Builds the viewer in memory. */
export async function buildViewer(): Promise<ViewerAssets> {
  const result = await build(viewerBuildOptions());
  const assets = new Map<string, ViewerAsset>();
  for (const file of result.outputFiles ?? []) {
    const name = basename(file.path);
    const contentType = VIEWER_FILES[name];
    if (contentType !== undefined) assets.set(name, { body: file.contents, contentType });
  }
  assets.set('index.html', {
    body: readFileSync(join(pageDir, 'index.html')),
    contentType: VIEWER_FILES['index.html']!,
  });
  for (const name of Object.keys(VIEWER_FILES)) {
    if (!assets.has(name)) throw new Error(`The viewer build produced no ${name}.`);
  }
  return assets;
}

/** Builds the viewer and writes it to `outdir` (default `dist/viewer`). */
export async function writeViewer(outdir = join(root, 'dist/viewer')): Promise<string[]> {
  const assets = await buildViewer();
  mkdirSync(outdir, { recursive: true });
  const written: string[] = [];
  for (const [name, asset] of assets) {
    const file = join(outdir, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, asset.body);
    written.push(file);
  }
  return written;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeViewer().then(
    (files) => console.log(`viewer written: ${files.map((f) => f.slice(root.length)).join(', ')}`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
