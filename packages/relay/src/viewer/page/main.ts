import './styles.css';
import { deriveAccountKeys } from 'happy-session/crypto';
import { accountKey } from './accountKey.js';
import { ViewerApi } from './api.js';
import { ViewerApp } from './app.js';
import { h } from './dom.js';
import { fragmentWithoutKey, parseViewerFragment } from './fragment.js';
import { ViewerSocket } from './updates.js';

/** Shows a problem in place of the viewer. */
function fail(root: HTMLElement, text: string): void {
  root.replaceChildren(h('div', { class: 'fatal' }, h('h1', {}, 'Happy session viewer'), h('p', {}, text)));
  document.body.dataset.viewer = 'failed';
}

const NO_KEY =
  'This browser has no key for the viewer yet. Open the one-time link `happy-session serve` prints (it ends in #ticket=…).';
const BAD_LINK = 'The key in this link is not readable. Copy the whole link again.';

async function main(): Promise<void> {
  const root = document.getElementById('app') ?? document.body;
  const fragment = parseViewerFragment(location.hash);
  // The key never stays in the address bar or the history, whatever happens next.
  history.replaceState(
    null,
    '',
    `${location.pathname}${location.search}${fragmentWithoutKey(location.hash)}`,
  );
  if (!fragment.ok) {
    fail(root, BAD_LINK);
    return;
  }
  const { source, sessionId } = fragment.value;
  let masterSecret: Uint8Array | undefined;
  let api: ViewerApi;
  try {
    masterSecret = await accountKey(source, location.origin, localStorage);
    if (!masterSecret) {
      fail(root, NO_KEY);
      return;
    }
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

// A link with a key, opened in this tab, may be another account: start over with it.
window.addEventListener('hashchange', () => {
  const next = parseViewerFragment(location.hash);
  if (!next.ok || next.value.source.kind !== 'kept') location.reload();
});
void main();
