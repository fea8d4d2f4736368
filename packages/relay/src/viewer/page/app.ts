import { debounceTime } from 'rxjs';
import type { AccountKeys } from 'happy-session/crypto';
import type { SessionRow, ViewerApi } from './api.js';
import { h, listTime } from './dom.js';
import { sessionKeyOf, sessionTitle } from './keys.js';
import { SessionView } from './sessionView.js';
import type { ViewerSocket } from './updates.js';
import { SESSION_PARAM } from '../fragmentFormat.js';

/** Options of {@link ViewerApp}. */
export interface ViewerAppOptions {
  readonly root: HTMLElement;
  readonly api: ViewerApi;
  readonly socket: ViewerSocket;
  readonly account: AccountKeys;
  /** Session to open first; default the most recently updated one. */
  readonly sessionId: string | undefined;
}

/** How many characters of a session id the list shows, enough to tell sessions apart. */
const SHORT_ID = 8;

/**
 * The viewer: the account's sessions in a side list (titles decrypted here; sessions whose key
 * does not unwrap are counted, as the app skips them), each with when it last changed, a short id
 * and whether its agent is live, and the selected session live.
 */
export class ViewerApp {
  private readonly list = h('nav', { class: 'sessions' });
  private readonly main = h('main', { class: 'main' });
  private readonly status = h('span', { class: 'connection', 'data-state': 'connecting' }, 'connecting');
  /** On a narrow screen the list is a drawer under the top bar; this opens and closes it. */
  private readonly drawerToggle = h(
    'button',
    { type: 'button', class: 'sessions-toggle', 'aria-expanded': 'false', 'aria-controls': 'sessions' },
    'Sessions',
  );
  private readonly layout = h('div', { class: 'layout' });
  private current: SessionView | undefined;
  private selected: string | undefined;

  constructor(private readonly options: ViewerAppOptions) {
    this.selected = options.sessionId;
    this.list.id = 'sessions';
    this.layout.append(this.list, this.main);
    options.root.replaceChildren(
      h('header', { class: 'top' }, this.drawerToggle, h('h1', {}, 'Happy session viewer'), this.status),
      this.layout,
    );
    this.drawerToggle.addEventListener('click', () =>
      this.showDrawer(this.drawerToggle.getAttribute('aria-expanded') !== 'true'),
    );
    options.socket.connected$.subscribe((up) => {
      this.status.dataset.state = up ? 'connected' : 'reconnecting';
      this.status.textContent = up ? 'live' : 'reconnecting…';
    });
    options.socket.sessionChanges$.pipe(debounceTime(300)).subscribe(() => void this.refresh());
    options.socket.activity$.subscribe(({ sessionId, activity }) => {
      const item = this.list.querySelector<HTMLElement>(
        `.session-item[data-session-id="${CSS.escape(sessionId)}"]`,
      );
      if (item) showState(item, activity.active);
    });
  }

  /** Lists the sessions and opens the selected one. */
  async start(): Promise<void> {
    await this.refresh();
  }

  /** Opens `sessionId` unless it is open already (the address bar's `#session=` changed). */
  show(sessionId: string): void {
    if (sessionId !== this.selected) this.open(sessionId);
  }

  private showDrawer(open: boolean): void {
    this.drawerToggle.setAttribute('aria-expanded', String(open));
    this.layout.classList.toggle('drawer-open', open);
  }

  private async refresh(): Promise<void> {
    const rows = await this.options.api.listSessions();
    const entries = await Promise.all(rows.map((row) => this.describe(row)));
    const readable = entries.filter((e) => e !== undefined);
    const items = readable.map((entry) => {
      const state = h('span', { class: 'session-item-state' });
      const item = h(
        'button',
        {
          type: 'button',
          class: 'session-item',
          'data-session-id': entry.row.id,
          title: entry.row.id,
        },
        h('span', { class: 'session-item-title' }, entry.title),
        h(
          'span',
          { class: 'session-item-meta' },
          state,
          ' · ',
          h('time', { datetime: new Date(entry.row.updatedAt).toISOString() }, listTime(entry.row.updatedAt)),
          ' · ',
          h('code', { class: 'session-item-id' }, entry.row.id.slice(0, SHORT_ID)),
        ),
      );
      showState(item, entry.row.active);
      item.addEventListener('click', () => {
        this.showDrawer(false);
        this.open(entry.row.id);
      });
      return item;
    });
    const hidden = entries.length - readable.length;
    this.list.replaceChildren(
      ...items,
      hidden > 0
        ? h('p', { class: 'hidden-sessions' }, `${hidden} session(s) not readable with this secret`)
        : '',
      items.length === 0 ? h('p', { class: 'empty' }, 'No sessions yet.') : '',
    );
    const target = this.selected ?? readable[0]?.row.id;
    if (target !== undefined && this.current?.element.dataset.sessionId !== target)
      this.open(target, readable);
    this.markSelected();
  }

  private async describe(row: SessionRow) {
    const key = sessionKeyOf(row, this.options.account);
    if (!key.ok) return undefined;
    const title = (await sessionTitle(row.metadata, key.value)) ?? `Session ${row.id}`;
    return { row, key: key.value, title };
  }

  private open(sessionId: string, known?: ReadonlyArray<Awaited<ReturnType<ViewerApp['describe']>>>): void {
    const describe = known
      ? Promise.resolve(known.find((e) => e?.row.id === sessionId))
      : this.options.api
          .listSessions()
          .then((rows) => rows.find((r) => r.id === sessionId))
          .then((row) => (row ? this.describe(row) : undefined));
    this.selected = sessionId;
    this.rememberSelection(sessionId, known === undefined);
    this.markSelected();
    void describe.then((entry) => {
      if (this.selected !== sessionId) return;
      this.current?.close();
      this.current = undefined;
      if (!entry) {
        this.main.replaceChildren(h('p', { class: 'empty' }, `Session ${sessionId} is not readable here.`));
        return;
      }
      const view = new SessionView(this.options.api, this.options.socket, sessionId, entry.title, entry.key);
      this.current = view;
      this.main.replaceChildren(view.element);
      view.start();
    });
  }

  private markSelected(): void {
    this.list.querySelectorAll<HTMLElement>('.session-item').forEach((item) => {
      item.classList.toggle('selected', item.dataset.sessionId === this.selected);
    });
  }

  /**
   * Keeps the open session in the fragment (never sent to the server) so a reload reopens it; a
   * session the person picked is a new history entry, so Back returns to the one before.
   */
  private rememberSelection(sessionId: string, picked: boolean): void {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get(SESSION_PARAM) === sessionId) return;
    params.set(SESSION_PARAM, sessionId);
    if (picked) history.pushState(null, '', `#${params.toString()}`);
    else history.replaceState(null, '', `#${params.toString()}`);
  }
}

/** `live` while the agent is connected (the server's `active`), `idle` otherwise. */
function showState(item: HTMLElement, active: boolean): void {
  item.dataset.active = String(active);
  const state = item.querySelector('.session-item-state');
  if (state) state.textContent = active ? 'live' : 'idle';
}
