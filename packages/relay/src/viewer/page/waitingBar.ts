import type { PermissionRequestMessage, QuestionMessage } from 'happy-session/protocol';
import { h } from './dom.js';

/** What waits for the person now, as the fold says: requests and questions, each in stream order. */
export interface Waiting {
  readonly requests: readonly PermissionRequestMessage[];
  readonly questions: readonly QuestionMessage[];
}

/** `1 request`, `2 requests and 1 question`: how much waits, in words. */
export function waitingSummary({ requests, questions }: Waiting): string {
  const parts = [
    requests.length > 0 ? `${requests.length} request${requests.length === 1 ? '' : 's'}` : '',
    questions.length > 0 ? `${questions.length} question${questions.length === 1 ? '' : 's'}` : '',
  ].filter((part) => part !== '');
  return parts.join(' and ');
}

/**
 * The "waiting for you" bar (docs/viewer.md, "What waits for you"): shown whenever one or more
 * permission requests or questions wait, hidden otherwise. It names how many and the first, and a
 * tap scrolls the first waiting card (in page order) into view, below the pinned panel, and
 * focuses it, so a request that came while the person read elsewhere is one tap away.
 */
export class WaitingBar {
  readonly element: HTMLButtonElement;
  private readonly count = h('span', { class: 'waiting-count' });
  private readonly first = h('span', { class: 'waiting-first' });
  private selectors: string[] = [];

  /**
   * @param scope where the cards are (the session's article)
   * @param pinned the panel that stays at the top (the bar and the plan): a card scrolled to
   *   lands below it, not under it
   */
  constructor(
    private readonly scope: HTMLElement,
    private readonly pinned: () => HTMLElement,
  ) {
    this.element = h(
      'button',
      { type: 'button', class: 'waiting-bar', hidden: '', 'aria-live': 'polite' },
      h('span', { class: 'waiting-label' }, 'Waiting for you: '),
      this.count,
      this.first,
      h('span', { class: 'waiting-go', 'aria-hidden': 'true' }, 'Show'),
    );
    this.element.addEventListener('click', () => this.jump());
  }

  update(waiting: Waiting): void {
    const total = waiting.requests.length + waiting.questions.length;
    this.element.hidden = total === 0;
    this.element.dataset.count = String(total);
    this.selectors = [
      ...waiting.requests.map((r) => `.permission[data-call-id="${CSS.escape(r.callId)}"]`),
      ...waiting.questions.map((q) => `.question[data-question-id="${CSS.escape(q.questionId)}"]`),
    ];
    if (total === 0) return;
    this.count.textContent = waitingSummary(waiting);
    this.first.textContent = firstTitle(waiting, this.target());
  }

  /** The first waiting card in page order, if it is rendered. */
  private target(): HTMLElement | undefined {
    if (this.selectors.length === 0) return undefined;
    return this.scope.querySelector<HTMLElement>(this.selectors.join(', ')) ?? undefined;
  }

  private jump(): void {
    const card = this.target();
    if (!card) return;
    // Land below the pinned panel where it sticks (its `top`, under the top bar), with some air.
    const pinned = this.pinned();
    const stuckBottom = parseFloat(getComputedStyle(pinned).top) + pinned.offsetHeight;
    card.style.scrollMarginTop = `${Math.ceil(stuckBottom) + 8}px`;
    card.scrollIntoView({ block: 'start' });
    // The card, not its Allow button, takes the focus: a stray Enter must not answer it.
    card.tabIndex = -1;
    card.focus({ preventScroll: true });
  }
}

/** The title of what the bar jumps to: the card's request or question, else the first request. */
function firstTitle({ requests, questions }: Waiting, card: HTMLElement | undefined): string {
  const question = questions.find((q) => q.questionId === card?.dataset.questionId);
  if (question) return question.title ?? question.questions[0]?.question ?? '';
  const request = requests.find((r) => r.callId === card?.dataset.callId) ?? requests[0];
  return request?.title ?? questions[0]?.title ?? questions[0]?.questions[0]?.question ?? '';
}
