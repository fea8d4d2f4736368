import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file of the viewer bundle. */
export interface ViewerAsset {
  readonly body: Uint8Array;
  readonly contentType: string;
}

/** The viewer bundle by file name: `index.html`, `app.js`, `app.css`. */
export type ViewerAssets = ReadonlyMap<string, ViewerAsset>;

/** The files of a built viewer, in the order the build writes them. */
export const VIEWER_FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The build script's export the relay uses when it runs from source. */
interface ViewerBuilder {
  buildViewer(): Promise<ViewerAssets>;
}

const moduleUrl = import.meta.url;

/**
 * Where the viewer comes from. Run from source (tsx, vitest: this file is `.ts`), the page is built
 * in memory from `src/viewer/page/` with `scripts/build-viewer.ts`, so it is never stale and
 * nothing generated is committed. Run from the package (`dist/`), the files the package's build
 * wrote to `dist/viewer/` are read. Resolves `undefined` when neither exists.
 *
 * @param from URL of the running module; tests pass another to check the lookup.
 */
export function loadViewerAssets(from: string = moduleUrl): Promise<ViewerAssets | undefined> {
  if (from.endsWith('.ts')) {
    const script = new URL('../../scripts/build-viewer.ts', from).href;
    // A computed specifier: the library build must not bundle the build script or esbuild.
    return (import(script) as Promise<ViewerBuilder>).then((builder) => builder.buildViewer());
  }
  return Promise.resolve(readBuiltViewer(from));
}

function readBuiltViewer(from: string): ViewerAssets | undefined {
  // The package's modules sit in dist/, beside dist/viewer/.
  for (const candidate of ['./viewer/']) {
    const dir = fileURLToPath(new URL(candidate, from));
    const names = Object.keys(VIEWER_FILES);
    if (!names.every((name) => existsSync(`${dir}${name}`))) continue;
    return new Map(
      names.map((name) => [name, { body: readFileSync(`${dir}${name}`), contentType: VIEWER_FILES[name]! }]),
    );
  }
  return undefined;
}
