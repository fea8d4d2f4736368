import './styles.css';
import { deriveAccountKeys } from 'happy-session/crypto';
import { ViewerApi } from './api.js';
import { ViewerApp } from './app.js';
import { h } from './dom.js';
import { parseViewerFragment } from './fragment.js';
import { ViewerSocket } from './updates.js';

/** Shows a problem in place of the viewer. */
function fail(root: HTMLElement, text: string): void {
  root.replaceChildren(h('div', { class: 'fatal' }, h('h1', {}, 'Happy session viewer'), h('p', {}, text)));
  document.body.dataset.viewer = 'failed';
}

async function main(): Promise<void> {
  const root = document.getElementById('app') ?? document.body;
  const fragment = parseViewerFragment(location.hash);
  if (!fragment.ok) {
    fail(
      root,
      fragment.problem === 'missing-secret'
        ? 'Open this page with the link `happy-session serve` or `happy-session demo` prints: it ends in #secret=….'
        : 'The secret in this link is not a 32-byte base64url key. Copy the whole link again.',
    );
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
