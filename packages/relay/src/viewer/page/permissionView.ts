import type { PermissionRequestMessage } from 'happy-session/protocol';
import { clockTime, h } from './dom.js';
import { renderInlineMarkdown } from './markdown.js';
import { previewSummary } from 'happy-session/internal';
import { previewCard } from './previewView.js';
import type { PermissionResponder, PermissionState } from './renderContext.js';

/**
 * A permission request: its title and option buttons while pending; once answered, which option,
 * who chose it and when; once its call ended unanswered, that it was closed. A click stores the
 * answer and calls the agent's RPC (see {@link PermissionResponder}); the card changes state only
 * when the answer shows up in the stream, so what it shows is what was recorded.
 */
export class PermissionView {
  readonly element: HTMLElement;
  private readonly buttons: HTMLButtonElement[] = [];
  private readonly outcome = h('div', { class: 'permission-outcome' });
  private readonly note = h('div', { class: 'permission-note' });
  private settled = false;

  constructor(
    private readonly request: PermissionRequestMessage,
    private readonly responder: PermissionResponder,
  ) {
    const options = h('div', { class: 'permission-options' });
    for (const option of request.options) {
      const button = h(
        'button',
        { type: 'button', 'data-option-id': option.id, 'data-kind': option.kind },
        option.label,
      );
      button.addEventListener('click', () => this.choose(option.id));
      this.buttons.push(button);
      options.append(button);
    }
    const args = request.args !== undefined ? JSON.stringify(request.args, null, 2) : undefined;
    // The description ends with the preview's summary (for readers without a card): the card shows it.
    const summary = request.preview ? previewSummary(request.preview) : undefined;
    const description =
      summary !== undefined && request.description?.endsWith(summary)
        ? request.description.slice(0, -summary.length).trimEnd()
        : request.description;
    this.element = h(
      'div',
      { class: 'permission', 'data-state': 'pending', 'data-call-id': request.callId },
      h('div', { class: 'permission-title' }, 'Permission requested: ', renderInlineMarkdown(request.title)),
      description ? h('div', { class: 'permission-description' }, renderInlineMarkdown(description)) : null,
      args && args !== '{}' ? h('pre', { class: 'permission-args' }, args) : null,
      request.preview ? previewCard(request.preview) : null,
      options,
      this.outcome,
      this.note,
    );
  }

  update(state: PermissionState): void {
    if (this.settled) return;
    if (state.response && !state.decided) {
      this.note.textContent = 'Answered; waiting for the agent to apply it.';
    } else if (state.decided) {
      this.settled = true;
      this.note.textContent = '';
      // Who chose it: the first answer of that option, if it came from this page.
      const response = state.response?.optionId === state.decided.optionId ? state.response : state.decided;
      const option = this.request.options.find((o) => o.id === response.optionId);
      const who = this.responder.isMine(response) ? 'you (this viewer)' : 'the user';
      this.element.dataset.state = 'answered';
      this.element.dataset.decision = option?.kind ?? 'unknown';
      this.outcome.textContent = `${option?.label ?? response.optionId} — decided by ${who} at ${clockTime(response.time)}`;
      for (const button of this.buttons) {
        button.disabled = true;
        if (button.dataset.optionId === response.optionId) button.classList.add('chosen');
      }
    } else if (state.ended) {
      this.settled = true;
      this.element.dataset.state = 'closed';
      this.outcome.textContent = `No answer: the call ended${state.endError ? ` (${state.endError})` : ''}.`;
      for (const button of this.buttons) button.disabled = true;
    }
  }

  private choose(optionId: string): void {
    for (const button of this.buttons) button.disabled = true;
    this.element.dataset.state = 'sending';
    this.note.textContent = '';
    this.responder.answer(this.request, optionId).then(
      (rpc) => {
        if (!rpc.ok) this.note.textContent = `Recorded in the stream; the agent's RPC said: ${rpc.error}`;
      },
      (error: unknown) => {
        if (this.settled) return;
        this.element.dataset.state = 'pending';
        this.note.textContent = `Not sent: ${error instanceof Error ? error.message : String(error)}`;
        for (const button of this.buttons) button.disabled = false;
      },
    );
  }
}
