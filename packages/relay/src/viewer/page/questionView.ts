import type { QuestionEndMessage, QuestionMessage } from 'happy-session/protocol';
import type { SentQuestionReply } from 'happy-session/user';
import { clockTime, h } from './dom.js';
import { renderInlineMarkdown } from './markdown.js';

/** Answers the agent's questions from the page, as today's app does: the `communication` RPC. */
export interface QuestionResponder {
  /** Sends the answers (or `cancelled`); resolves with the agent's typed result. */
  answer(
    question: QuestionMessage,
    reply: Record<string, { options: string[]; custom?: string }> | 'cancelled',
  ): Promise<SentQuestionReply>;
  /** How the question ended, as the stream says now (undefined while it waits). */
  ended(question: QuestionMessage): QuestionEndMessage | undefined;
}

const ENDED: Readonly<Record<QuestionEndMessage['status'], string>> = {
  answered: 'Answered',
  cancelled: 'Dismissed',
  timed_out: 'No answer in time',
  stopped: 'Stopped with its turn',
};

/** One question of the form: its choices (toggles) and, where allowed, a text field. */
class QuestionField {
  readonly element: HTMLElement;
  readonly buttons: HTMLButtonElement[] = [];
  readonly picked = new Set<string>();
  readonly text: HTMLInputElement | undefined;

  constructor(readonly question: QuestionMessage['questions'][number]) {
    const options = h('div', { class: 'question-options' });
    for (const option of question.options) {
      const button = h(
        'button',
        { type: 'button', 'data-label': option.label, 'aria-pressed': 'false' },
        option.label,
        option.description ? h('span', { class: 'question-option-description' }, option.description) : null,
      );
      button.addEventListener('click', () => this.toggle(option.label));
      this.buttons.push(button);
      options.append(button);
    }
    if (question.allowCustom) {
      this.text = h('input', {
        type: 'text',
        class: 'question-custom',
        'data-question-id': question.id,
        placeholder: question.options.length > 0 ? 'Or write your own answer' : 'Your answer',
        'aria-label': question.question,
      }) as HTMLInputElement;
    }
    this.element = h(
      'fieldset',
      { class: 'question-field', 'data-question-id': question.id },
      h('legend', {}, question.header !== question.question ? `${question.header}: ` : '', question.question),
      question.multiSelect ? h('div', { class: 'question-hint' }, 'Pick one or more.') : null,
      question.options.length > 0 ? options : null,
      this.text ?? null,
    );
  }

  private toggle(label: string): void {
    if (this.picked.has(label)) this.picked.delete(label);
    else {
      if (!this.question.multiSelect) this.picked.clear();
      this.picked.add(label);
    }
    for (const button of this.buttons) {
      const on = this.picked.has(button.dataset.label ?? '');
      button.classList.toggle('chosen', on);
      button.setAttribute('aria-pressed', String(on));
    }
  }

  answer(): { options: string[]; custom?: string } {
    const custom = this.text?.value.trim() ?? '';
    return { options: [...this.picked], ...(custom !== '' ? { custom } : {}) };
  }

  disable(): void {
    for (const button of this.buttons) button.disabled = true;
    if (this.text) this.text.disabled = true;
  }

  enable(): void {
    for (const button of this.buttons) button.disabled = false;
    if (this.text) this.text.disabled = false;
  }
}

/**
 * The agent's question as a form card (docs/viewer.md, docs/questions.md): the choices of each
 * question, a text field where own answers are allowed, Send and Dismiss. A refused answer (a
 * required question left empty, say) shows the agent's reason and the form stays; the card turns
 * into its outcome only when the stream holds the question's `question-end`.
 */
export class QuestionView {
  readonly element: HTMLElement;
  private readonly fields: QuestionField[];
  private readonly send = h(
    'button',
    { type: 'button', class: 'question-send' },
    'Send',
  ) as HTMLButtonElement;
  private readonly dismiss = h(
    'button',
    { type: 'button', class: 'question-dismiss' },
    'Dismiss',
  ) as HTMLButtonElement;
  private readonly note = h('div', { class: 'question-note', role: 'status' });
  private settled = false;

  constructor(
    private readonly question: QuestionMessage,
    private readonly responder: QuestionResponder,
  ) {
    this.fields = question.questions.map((q) => new QuestionField(q));
    this.send.addEventListener('click', () => this.submit(this.answers()));
    this.dismiss.addEventListener('click', () => this.submit('cancelled'));
    this.element = h(
      'form',
      { class: 'question', 'data-state': 'pending', 'data-question-id': question.questionId },
      h(
        'div',
        { class: 'question-title' },
        'Question: ',
        renderInlineMarkdown(question.title ?? question.questions[0]!.header),
      ),
      ...this.fields.map((f) => f.element),
      h('div', { class: 'question-actions' }, this.send, this.dismiss),
      this.note,
    );
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit(this.answers());
    });
  }

  update(): void {
    if (this.settled) return;
    const end = this.responder.ended(this.question);
    if (!end) return;
    this.settled = true;
    this.element.dataset.state = end.status;
    for (const field of this.fields) field.disable();
    this.send.disabled = true;
    this.dismiss.disabled = true;
    const answers = end.answers ?? {};
    const parts = Object.entries(answers).map(([, a]) =>
      [...a.options, ...(a.custom ? [a.custom] : [])].join(', '),
    );
    this.note.textContent = `${ENDED[end.status]}${parts.length > 0 ? `: ${parts.join('; ')}` : ''} at ${clockTime(end.time)}`;
    for (const field of this.fields) {
      const chosen = answers[field.question.id]?.options ?? [];
      for (const button of field.buttons)
        button.classList.toggle('chosen', chosen.includes(button.dataset.label ?? ''));
    }
  }

  private answers(): Record<string, { options: string[]; custom?: string }> {
    const out: Record<string, { options: string[]; custom?: string }> = {};
    for (const field of this.fields) {
      const answer = field.answer();
      if (answer.options.length > 0 || answer.custom !== undefined) out[field.question.id] = answer;
    }
    return out;
  }

  private submit(reply: Record<string, { options: string[]; custom?: string }> | 'cancelled'): void {
    if (this.settled) return;
    this.element.dataset.state = 'sending';
    this.send.disabled = true;
    this.dismiss.disabled = true;
    for (const field of this.fields) field.disable();
    this.note.textContent = '';
    const reopen = (why: string): void => {
      if (this.settled) return;
      this.element.dataset.state = 'pending';
      this.note.textContent = why;
      this.send.disabled = false;
      this.dismiss.disabled = false;
      for (const field of this.fields) field.enable();
    };
    this.responder.answer(this.question, reply).then(
      (sent) => {
        if (sent.status === 'applied') this.note.textContent = 'Sent; the agent took it.';
        else if (sent.status === 'refused') reopen(sent.message);
        else if (sent.status === 'recorded')
          this.note.textContent = 'No agent is running: the answer is kept for the next one.';
        else reopen(`Not delivered: ${sent.error}`);
      },
      (error: unknown) => reopen(`Not sent: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}
