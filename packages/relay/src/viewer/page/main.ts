import './styles.css';
import { deriveAccountKeys } from 'happy-session/crypto';
import { accountKey } from './accountKey.js';
import { ViewerApi } from './api.js';
import { ViewerApp } from './app.js';
import { h } from './dom.js';
import type { Child } from './dom.js';
import { fragmentWithoutKey, parseViewerFragment } from './fragment.js';
import { ViewerSocket } from './updates.js';

/** Shows a problem in place of the viewer. */
function fail(root: HTMLElement, ...text: Child[]): void {
  root.replaceChildren(
    h('div', { class: 'fatal' }, h('h1', {}, 'Happy session viewer'), h('p', {}, ...text)),
  );
  document.body.dataset.viewer = 'failed';
}

/** The page without a key: what the link is, and where to get one (docs/viewer.md). */
function noKey(root: HTMLElement): void {
  fail(
    root,
    'This browser has no key for the viewer yet. Open the one-time link ',
    h('code', {}, 'happy-session serve'),
    ' prints (it ends in ',
    h('code', {}, '#ticket=…'),
    '), or the one ',
    h('code', {}, 'happy-session demo --keep'),
    ' prints. No key yet? Run ',
    h('code', {}, 'happy-session keygen'),
    ' first.',
  );
  document.body.dataset.viewer = 'no-key';
}

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
      noKey(root);
      return;
    }
    api = await ViewerApi.signIn(location.origin, masterSecret);
  } catch (error) {
    fail(root, error instanceof Error ? error.message : String(error));
    return;
  }
  const app: ViewerApp = new ViewerApp({
    root,
    api,
    socket: new ViewerSocket(location.origin, api.token),
    account: deriveAccountKeys(masterSecret),
    sessionId,
  });
  // `#session=` typed or edited in the address bar, or Back and Forward: switch to that session.
  window.addEventListener('hashchange', () => {
    const next = parseViewerFragment(location.hash);
    if (next.ok && next.value.source.kind === 'kept' && next.value.sessionId !== undefined)
      app.show(next.value.sessionId);
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
