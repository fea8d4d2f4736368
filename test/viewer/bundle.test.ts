import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildViewer, viewerBuildOptions } from '../../packages/relay/scripts/build-viewer.js';

const pageDir = fileURLToPath(new URL('../../packages/relay/src/viewer/page/', import.meta.url));
const decoder = new TextDecoder();

describe('the viewer bundle is browser-only', () => {
  it('builds index.html, app.js and app.css, and app.js imports nothing from Node', async () => {
    const assets = await buildViewer();
    expect([...assets.keys()].sort()).toEqual(['app.css', 'app.js', 'index.html']);
    const js = decoder.decode(assets.get('app.js')!.body);
    expect(js.length).toBeGreaterThan(1000);
    expect(js).not.toMatch(/["'`]node:/);
    expect(js).not.toMatch(/\brequire\(\s*["'](fs|path|crypto|os|child_process|net|tls|http|https)["']\s*\)/);
    const html = decoder.decode(assets.get('index.html')!.body);
    expect(html).toContain('src="viewer/app.js"');
    expect(html).toContain('href="viewer/app.css"');
  });

  it.each([
    ["import { readFileSync } from 'node:fs'; console.log(readFileSync);", 'node:fs'],
    ["import { createHash } from 'crypto'; console.log(createHash);", 'crypto'],
  ])('fails to build when page code imports a Node built-in (%s)', async (source, builtin) => {
    const { entryPoints: _entry, ...options } = viewerBuildOptions();
    const attempt = build({
      ...options,
      stdin: { contents: `import './main.ts';\n${source}`, resolveDir: pageDir, loader: 'ts' },
    });
    await expect(attempt).rejects.toThrow(new RegExp(`Could not resolve "${builtin}"`));
  });
});

describe('the page uses the SDK only through its browser-safe root export', () => {
  const allowed =
    /^(\.\/|\.\.\/fragmentFormat\.js$|happy-session(\/(crypto|v1|internal|user|protocol|ports|redaction))?$|rxjs$|zod(\/mini)?$|socket\.io-client$|marked$|dompurify$|thumbhash$)/;
  const sources = readdirSync(pageDir).filter((name) => name.endsWith('.ts'));

  it.each(sources)('%s imports only page files, the root export and browser packages', (name) => {
    const text = readFileSync(join(pageDir, name), 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s+'([^']+)'/g)].map((m) => m[1]!);
    for (const specifier of specifiers) expect(specifier).toMatch(allowed);
  });
});
