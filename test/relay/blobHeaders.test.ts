import { afterEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { createSession, signIn, uploadPath } from './helpers.js';

/**
 * Issue 35, item 7: a stored blob is answered as opaque bytes a browser neither sniffs nor runs
 * (docs/relay.md, "Attachments"), whatever the bytes look like. The bytes are the client's
 * ciphertext, but the relay takes any bytes, so the table stores what a browser would render.
 */

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const BLOBS: Array<[string, string]> = [
  [
    'an HTML page with a script',
    '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>',
  ],
  ['an SVG with a script', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
  ['JavaScript', 'fetch("/v1/sessions").then((r) => r.text()).then(alert)'],
  ['a PDF header', '%PDF-1.7\n1 0 obj << /JS (app.alert(1)) >> endobj'],
  ['random bytes', '\u0000\u00ff\u0001binary'],
];

async function stored(bytes: Uint8Array) {
  relay = await startRelay();
  const { token } = await signIn(relay);
  const sessionId = (await createSession(relay, token)).id as string;
  const path = await uploadPath(relay, token, sessionId, bytes.length);
  const put = await fetch(`${relay.url}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: new Blob([new Uint8Array(bytes)]),
  });
  expect(put.status).toBe(200);
  return fetch(`${relay.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

describe('blob GETs are never sniffed or run', () => {
  it.each(BLOBS)('%s: nosniff, a CSP that allows nothing, an attachment', async (_name, text) => {
    const response = await stored(Buffer.from(text, 'latin1'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp.split(';').map((d) => d.trim())).toEqual(
      expect.arrayContaining(["default-src 'none'", 'sandbox', "frame-ancestors 'none'"]),
    );
    expect(response.headers.get('content-disposition')).toBe('attachment');
  });
});

describe('positive control: the bytes come back exactly', () => {
  it.each(BLOBS)('%s', async (_name, text) => {
    const bytes = Buffer.from(text, 'latin1');
    const response = await stored(bytes);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
