import type { UserSession } from 'happy-session/user';
import { h } from './dom.js';

/** What the composer's buttons depend on, as the stream says now. */
export interface ComposerState {
  /** A turn is open: Stop has something to stop. */
  readonly turnOpen: boolean;
  /** Permission requests waiting for an answer. */
  readonly pending: number;
}

/**
 * The user's controls of one session, as the Happy app has them: a prompt box (Enter sends,
 * Shift+Enter is a new line), Stop while a turn is open (the agent's `abort` RPC), and "Allow all"
 * when several requests wait (each answered once, `allow-once`). Everything goes through the SDK's
 * `UserSession`; the stream is what shows the outcome.
 */
export class Composer {
  readonly element: HTMLFormElement;
  private readonly input = h('textarea', {
    name: 'prompt',
    rows: '2',
    placeholder: 'Message the agent (Enter sends, Shift+Enter for a new line)',
    'aria-label': 'Prompt',
  });
  private readonly sendButton = h('button', { type: 'submit', class: 'send' }, 'Send');
  private readonly stopButton = h('button', { type: 'button', class: 'stop', disabled: '' }, 'Stop');
  private readonly allowAllButton = h(
    'button',
    { type: 'button', class: 'allow-all', hidden: '' },
    'Allow all',
  );
  private readonly status = h('div', { class: 'composer-status', role: 'status' });

  constructor(private readonly session: UserSession) {
    this.element = h(
      'form',
      { class: 'composer' },
      this.input,
      h('div', { class: 'composer-buttons' }, this.sendButton, this.stopButton, this.allowAllButton),
      this.status,
    );
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.send();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.send();
      }
    });
    this.stopButton.addEventListener('click', () => void this.stop());
    this.allowAllButton.addEventListener('click', () => void this.allowAll());
  }

  /** Shows Stop while a turn is open and "Allow all (n)" while two or more requests wait. */
  update(state: ComposerState): void {
    this.stopButton.disabled = !state.turnOpen;
    this.allowAllButton.hidden = state.pending < 2;
    this.allowAllButton.disabled = false;
    this.allowAllButton.textContent = `Allow all (${state.pending})`;
  }

  private async send(): Promise<void> {
    const text = this.input.value.trim();
    if (text === '' || this.sendButton.disabled) return;
    this.sendButton.disabled = true;
    this.say('Sending…');
    try {
      await this.session.send(text);
      this.input.value = '';
      this.say('');
    } catch (error) {
      this.say(`Not sent: ${messageOf(error)}`);
    } finally {
      this.sendButton.disabled = false;
    }
  }

  private async stop(): Promise<void> {
    this.stopButton.disabled = true;
    this.say('Stopping…');
    const outcome = await this.session.stop();
    this.say(outcome.ok ? 'Stop sent.' : `The agent did not take the stop: ${outcome.error}`);
  }

  private async allowAll(): Promise<void> {
    this.allowAllButton.disabled = true;
    try {
      const answers = await this.session.answerAll('allow');
      await Promise.all(answers.map((a) => a.recorded));
      this.say(`Allowed ${answers.length} request${answers.length === 1 ? '' : 's'} once.`);
    } catch (error) {
      this.allowAllButton.disabled = false;
      this.say(`Not sent: ${messageOf(error)}`);
    }
  }

  private say(text: string): void {
    this.status.textContent = text;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
