import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeViewer } from '../../packages/relay/scripts/build-viewer.js';
import { startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { loadViewerAssets } from '../../packages/relay/src/viewer/assets.js';

describe('the relay serves the viewer', () => {
  let relay: Relay;
  beforeAll(async () => {
    relay = await startRelay();
  });
  afterAll(() => relay.close());

  it('answers GET / with the page, under a same-origin-only content security policy', async () => {
    const response = await fetch(`${relay.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).toContain('<script type="module" src="viewer/app.js"></script>');
  });

  it('serves the script and the style sheet, and nothing else under /viewer/', async () => {
    const js = await fetch(`${relay.url}/viewer/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const css = await fetch(`${relay.url}/viewer/app.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await fetch(`${relay.url}/viewer/main.ts`)).status).toBe(404);
    expect((await fetch(`${relay.url}/viewer/..%2Fserver.ts`)).status).toBe(404);
  });
});

describe('loadViewerAssets from a built package', () => {
  const dist = mkdtempSync(join(tmpdir(), 'viewer-dist-'));
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it("reads dist/viewer next to the package's modules (dist/index.js and its chunks)", async () => {
    await writeViewer(join(dist, 'viewer'));
    for (const module of ['index.js', 'chunk-ABCDEF.js']) {
      const assets = await loadViewerAssets(pathToFileURL(join(dist, module)).href);
      expect([...(assets?.keys() ?? [])].sort()).toEqual(['app.css', 'app.js', 'index.html']);
    }
  });

  it('finds nothing in a package built without the viewer', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'viewer-empty-'));
    try {
      await expect(loadViewerAssets(pathToFileURL(join(empty, 'index.js')).href)).resolves.toBeUndefined();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
