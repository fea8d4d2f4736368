import './styles.css';
import { deriveAccountKeys } from 'happy-session/crypto';
import { ViewerApi } from './api.js';
import { ViewerApp } from './app.js';
import { h } from './dom.js';
import type { Child } from './dom.js';
import { parseViewerFragment } from './fragment.js';
import { ViewerSocket } from './updates.js';

/** Shows a problem in place of the viewer. */
function fail(root: HTMLElement, ...text: Child[]): void {
  root.replaceChildren(
    h('div', { class: 'fatal' }, h('h1', {}, 'Happy session viewer'), h('p', {}, ...text)),
  );
  document.body.dataset.viewer = 'failed';
}

/** The page without a key: what the link is, and where to get one. */
function noKey(root: HTMLElement): void {
  fail(
    root,
    'This page needs the link with your account key. Open the link ',
    h('code', {}, 'happy-session serve'),
    ' or ',
    h('code', {}, 'happy-session demo --keep'),
    ' prints: it ends in ',
    h('code', {}, '#secret=…'),
    '. No key yet? Run ',
    h('code', {}, 'happy-session keygen'),
    ' first.',
  );
  document.body.dataset.viewer = 'no-key';
}

async function main(): Promise<void> {
  const root = document.getElementById('app') ?? document.body;
  const fragment = parseViewerFragment(location.hash);
  if (!fragment.ok) {
    if (fragment.problem === 'missing-secret') noKey(root);
    else fail(root, 'The secret in this link is not a 32-byte base64url key. Copy the whole link again.');
    return;
  }
  const { masterSecret, sessionId } = fragment.value;
  let api: ViewerApi;
  try {
    api = await ViewerApi.signIn(location.origin, masterSecret);
  } catch (error) {
    fail(root, error instanceof Error ? error.message : String(error));
    return;
  }
  const app = new ViewerApp({
    root,
    api,
    socket: new ViewerSocket(location.origin, api.token),
    account: deriveAccountKeys(masterSecret),
    sessionId,
  });
  try {
    await app.start();
    document.body.dataset.viewer = 'ready';
  } catch (error) {
    fail(root, error instanceof Error ? error.message : String(error));
  }
}

// A new secret in the fragment is a new account: start over.
window.addEventListener('hashchange', (event) => {
  const before = new URLSearchParams(new URL(event.oldURL).hash.slice(1)).get('secret');
  if (new URLSearchParams(location.hash.slice(1)).get('secret') !== before) location.reload();
});
void main();
