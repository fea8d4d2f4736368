import type { Subscription } from 'rxjs';
import { blobKeyFor } from 'happy-session/crypto';
import { SessionFold } from 'happy-session';
import { UserSession } from 'happy-session/user';
import type { PermissionRequestMessage, PermissionResponseMessage } from 'happy-session/protocol';
import type { ReaderEvent } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import type { ViewerApi } from './api.js';
import { Composer } from './composer.js';
import { h } from './dom.js';
import { MediaLoader } from './mediaLoader.js';
import { PlanView } from './planView.js';
import type { PermissionResponder, PermissionState, RenderContext, RpcOutcome } from './renderContext.js';
import { ViewerSessionTransport } from './sessionTransport.js';
import { TimelineView } from './timeline.js';
import type { ViewerSocket } from './updates.js';
import { WaitingBar } from './waitingBar.js';

/** How long to wait before reading again after the relay could not be reached. */
const RETRY_MS = 2000;

/**
 * One session, live, through the SDK's `UserSession` (the user's side, as the app has it): it reads
 * the stream from the start and then follows the socket's hints (catching up over HTTP on any gap
 * or reconnect); each message is folded with `SessionFold` and the timeline updated. Records that
 * fail to decrypt or validate are listed, not dropped. The agent's current plan and a bar saying what waits for the person stay at the top. The composer below sends prompts, stops the
 * turn and allows every waiting request; the permission cards answer one.
 */
export class SessionView {
  readonly element: HTMLElement;
  private readonly fold = new SessionFold();
  private readonly user: UserSession;
  private readonly timeline: TimelineView;
  private readonly composer: Composer;
  private readonly plan = new PlanView();
  /** What stays in view at the top while the transcript scrolls: the waiting bar and the plan. */
  private readonly pinned = h('div', { class: 'session-pinned' });
  private readonly waiting: WaitingBar;
  private readonly problems = h('ul', { class: 'record-errors' });
  private readonly responses = new Map<string, PermissionResponseMessage[]>();
  private subscription: Subscription | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private lastSeq = 0;
  private closed = false;

  constructor(api: ViewerApi, socket: ViewerSocket, sessionId: string, title: string, key: RecordKey) {
    this.user = new UserSession({
      id: sessionId,
      key,
      transport: new ViewerSessionTransport(api, socket, sessionId),
      rpc: socket.rpcCaller(sessionId, key),
      activity$: socket.activityOf(sessionId),
    });
    const context: RenderContext = {
      media: new MediaLoader(api, sessionId, blobKeyFor(key)),
      responder: responderOf(this.user),
      permissionState: (request) => this.permissionState(request),
      questions: {
        answer: (question, reply) => this.user.answerQuestion(question.questionId, reply),
        ended: (question) => this.fold.question(question.questionId)?.end,
      },
    };
    this.timeline = new TimelineView(context);
    this.composer = new Composer(this.user);
    this.waiting = new WaitingBar(this.timeline.element, () => this.pinned);
    this.pinned.append(this.waiting.element, this.plan.element);
    this.element = h(
      'article',
      { class: 'session', 'data-session-id': sessionId },
      h('h2', { class: 'session-title' }, title),
      this.pinned,
      this.timeline.element,
      this.problems,
      this.composer.element,
    );
  }

  /** Starts reading (from the start of the stream) and following the session. */
  start(): void {
    this.subscription = this.user.events$({ afterSeq: this.lastSeq }).subscribe({
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
    void this.user.close();
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
      this.plan.render(this.fold.plan);
      this.timeline.render(this.fold);
      this.waiting.update({
        requests: this.fold.pendingPermissions,
        questions: this.fold.pendingQuestions,
      });
      this.composer.update({
        turnOpen: this.fold.timeline.some((item) => item.kind === 'turn' && item.status === 'open'),
        pending: this.fold.pendingPermissions.length,
      });
    }, 16);
  }

  private permissionState(request: PermissionRequestMessage): PermissionState {
    const response = this.responses
      .get(request.callId)
      ?.find((r) => request.options.some((o) => o.id === r.optionId));
    const folded = this.fold.call(request.callId)?.permission;
    // The fold's answer is the decision once the agent confirmed it (its record, or its note).
    const decided = folded?.request === request && folded.confirmed === true ? folded.response : undefined;
    const end = this.fold.call(request.callId)?.end;
    return { response, decided, ended: end !== undefined, endError: end?.error };
  }
}

/** The permission cards' answers through the user session: the stream record, then the RPC. */
function responderOf(user: UserSession): PermissionResponder {
  return {
    isMine: (response: PermissionResponseMessage) => user.wrote(response.id),
    answer: async (request: PermissionRequestMessage, optionId: string): Promise<RpcOutcome> => {
      const sent = await user.answer(request, optionId);
      // Settled before the click (answered elsewhere, or its call ended): the card follows the stream.
      if (sent.status === 'settled') return { ok: true };
      await sent.recorded;
      const outcome = await sent.rpc;
      if (!outcome) return { ok: true };
      if (!outcome.ok) return { ok: false, error: outcome.error };
      const error = (outcome.result as { error?: unknown } | null)?.error;
      return typeof error === 'string' ? { ok: false, error } : { ok: true };
    },
  };
}
