import type { PlanEntry, PlanMessage } from 'happy-session';
import { h } from './dom.js';
import { renderInlineMarkdown } from './markdown.js';

const MARK: Readonly<Record<PlanEntry['status'], string>> = {
  completed: '☑',
  in_progress: '◐',
  pending: '☐',
};

const STATUS_LABEL: Readonly<Record<PlanEntry['status'], string>> = {
  completed: 'done',
  in_progress: 'in progress',
  pending: 'pending',
};

/** How far a plan is: `2 of 5 done`. */
export function planProgress(plan: PlanMessage): string {
  const done = plan.entries.filter((e) => e.status === 'completed').length;
  return `${done} of ${plan.entries.length} done`;
}

/**
 * The agent's current plan (the fold's latest `plan`, docs/protocol.md, "plan") as a checklist at
 * the top of the session, replaced whole when a newer plan comes; hidden until there is one.
 */
export class PlanView {
  readonly element = h('section', { class: 'plan', hidden: '' });
  private shown: PlanMessage | undefined;

  render(plan: PlanMessage | undefined): void {
    if (plan === this.shown) return;
    this.shown = plan;
    if (!plan) {
      this.element.hidden = true;
      this.element.replaceChildren();
      return;
    }
    this.element.hidden = false;
    this.element.dataset.messageId = plan.id;
    this.element.replaceChildren(
      h(
        'header',
        { class: 'plan-header' },
        'Plan ',
        h('span', { class: 'plan-progress' }, planProgress(plan)),
      ),
      h(
        'ol',
        { class: 'plan-entries' },
        ...plan.entries.map((entry) =>
          h(
            'li',
            { class: 'plan-entry', 'data-status': entry.status, 'data-priority': entry.priority },
            h('span', { class: 'plan-mark', title: STATUS_LABEL[entry.status] }, MARK[entry.status]),
            ' ',
            h('span', { class: 'plan-content' }, renderInlineMarkdown(entry.content)),
            entry.priority ? h('span', { class: 'plan-priority' }, entry.priority) : null,
          ),
        ),
      ),
    );
  }
}
