import type { SessionMessage } from 'happy-session';
import { clockTime, h } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { fileView, photoView, videoView } from './mediaView.js';
import { PermissionView } from './permissionView.js';
import { planProgress } from './planView.js';
import { QuestionView } from './questionView.js';
import type { NodeView, RenderContext } from './renderContext.js';

function content(message: SessionMessage, context: RenderContext): HTMLElement {
  switch (message.type) {
    case 'text':
      if (message.role === 'user') {
        return h('div', { class: 'text user' }, h('div', { class: 'who' }, 'You'), h('p', {}, message.text));
      }
      if (message.thinking) {
        // Reasoning is there to inspect, not to read along: collapsed until opened.
        return h(
          'details',
          { class: 'thinking' },
          h('summary', {}, 'Thinking'),
          h('div', { class: 'markdown' }, renderMarkdown(message.text)),
        );
      }
      return h('div', { class: 'text agent markdown' }, renderMarkdown(message.text));
    case 'service':
      return h('div', { class: 'service' }, message.text);
    case 'photo':
      return photoView(message, context.media);
    case 'video':
      return videoView(message, context.media);
    case 'file':
      return fileView(message, context.media);
    case 'permission-response':
      return h(
        'div',
        { class: 'service' },
        `Answer "${message.optionId}" for call ${message.callId} at ${clockTime(message.time)}`,
      );
    case 'plan':
      return h('div', { class: 'service' }, `Plan updated: ${planProgress(message)}`);
    case 'tool-call-end':
      return h(
        'div',
        { class: 'service' },
        `Call ${message.callId} ended${message.error ? `: ${message.error}` : ''}`,
      );
    default:
      return h('div', { class: 'service' }, `${message.type}`);
  }
}

/** A message shown as it is; a permission request outside any known call gets its own card. */
export class MessageView implements NodeView {
  readonly element: HTMLElement;
  private readonly permission: PermissionView | undefined;
  private readonly question: QuestionView | undefined;

  constructor(
    private readonly message: SessionMessage,
    private readonly context: RenderContext,
  ) {
    if (message.type === 'permission-request') {
      this.permission = new PermissionView(message, context.responder);
      this.element = h('div', { class: 'message' }, this.permission.element);
    } else if (message.type === 'question') {
      this.question = new QuestionView(message, context.questions);
      this.element = h('div', { class: 'message message-question' }, this.question.element);
    } else if (message.type === 'question-end') {
      // Its question's card shows the outcome.
      this.element = h('div', { class: 'message message-question-end', hidden: '' });
    } else {
      this.element = h('div', { class: `message message-${message.type}` }, content(message, context));
    }
    this.element.dataset.messageId = message.id;
  }

  update(): void {
    this.question?.update();
    if (this.permission && this.message.type === 'permission-request') {
      this.permission.update(this.context.permissionState(this.message));
    }
  }
}
