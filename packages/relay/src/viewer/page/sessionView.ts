import type { Subscription } from 'rxjs';
import { blobKeyFor } from 'happy-session/crypto';
import { SessionFold, SessionReader } from 'happy-session';
import type { PermissionRequestMessage, PermissionResponseMessage, ReaderEvent } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import type { ViewerApi } from './api.js';
import { h } from './dom.js';
import { MediaLoader } from './mediaLoader.js';
import type { PermissionState } from './permissionView.js';
import type { RenderContext } from './renderContext.js';
import { PermissionResponder } from './respond.js';
import { ViewerSessionTransport } from './sessionTransport.js';
import { TimelineView } from './timeline.js';
import type { ViewerSocket } from './updates.js';

/** How long to wait before reading again after the relay could not be reached. */
const RETRY_MS = 2000;

/**
 * One session, live: the SDK's `SessionReader` reads it from the start and then follows the
 * socket's hints (catching up over HTTP on any gap or reconnect); each message is folded with
 * `SessionFold` and the timeline updated. Records that fail to decrypt or validate are listed, not
 * dropped.
 */
export class SessionView {
  readonly element: HTMLElement;
  private readonly fold = new SessionFold();
  private readonly reader: SessionReader;
  private readonly timeline: TimelineView;
  private readonly problems = h('ul', { class: 'record-errors' });
  private readonly responses = new Map<string, PermissionResponseMessage[]>();
  private subscription: Subscription | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private lastSeq = 0;
  private closed = false;

  constructor(api: ViewerApi, socket: ViewerSocket, sessionId: string, title: string, key: RecordKey) {
    this.reader = new SessionReader({ transport: new ViewerSessionTransport(api, socket, sessionId), key });
    const context: RenderContext = {
      media: new MediaLoader(api, sessionId, blobKeyFor(key)),
      responder: new PermissionResponder(api, socket, sessionId, key),
      permissionState: (request) => this.permissionState(request),
    };
    this.timeline = new TimelineView(context);
    this.element = h(
      'article',
      { class: 'session', 'data-session-id': sessionId },
      h('h2', { class: 'session-title' }, title),
      this.timeline.element,
      this.problems,
    );
  }

  /** Starts reading (from the start of the stream) and following the session. */
  start(): void {
    this.subscription = this.reader.events$({ afterSeq: this.lastSeq }).subscribe({
      next: (event) => this.onEvent(event),
      error: (error: unknown) => {
        this.element.dataset.reading = 'retrying';
        this.element.title = error instanceof Error ? error.message : String(error);
        if (!this.closed) this.retryTimer = setTimeout(() => this.start(), RETRY_MS);
      },
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.renderTimer);
    this.subscription?.unsubscribe();
  }

  private onEvent(event: ReaderEvent): void {
    this.lastSeq = Math.max(this.lastSeq, event.seq);
    this.element.dataset.reading = 'live';
    this.element.dataset.lastSeq = String(this.lastSeq);
    if (event.kind === 'error') {
      this.problems.append(
        h('li', { 'data-seq': String(event.seq) }, `Record ${event.seq} could not be read: ${event.message}`),
      );
      return;
    }
    // A v1 subagent marker or an invisible legacy event: nothing to show.
    if (event.kind === 'skipped') return;
    const { message } = event;
    if (message.type === 'permission-response' && message.role === 'user') {
      const list = this.responses.get(message.callId) ?? [];
      list.push(message);
      this.responses.set(message.callId, list);
    }
    this.fold.apply(message);
    this.scheduleRender();
  }

  /** Coalesces a burst of messages (a catch-up page) into one DOM update. */
  private scheduleRender(): void {
    if (this.renderTimer !== undefined) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.timeline.render(this.fold);
    }, 16);
  }

  private permissionState(request: PermissionRequestMessage): PermissionState {
    const response = this.responses
      .get(request.callId)
      ?.find((r) => request.options.some((o) => o.id === r.optionId));
    const folded = this.fold.call(request.callId)?.permission;
    // The fold's answer is the agent's record once there is one (a response with `via`).
    const decided =
      folded?.request === request && folded.response?.via !== undefined ? folded.response : undefined;
    const end = this.fold.call(request.callId)?.end;
    return { response, decided, ended: end !== undefined, endError: end?.error };
  }
}
