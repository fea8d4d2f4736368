import type { Subscription } from 'rxjs';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import { SessionFold } from 'happy-session';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { UserSession } from 'happy-session/user';
import { describeRpc } from '../rpcOutcome.js';
import type { Terminal } from '../terminal.js';
import { renderWatchScreen } from './watchScreen.js';

const CLEAR = '\x1b[H\x1b[2J';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const CTRL_C = '\x03';
/** How many answers the status area remembers. */
const STATUS_LINES = 3;

interface AnswerStatus {
  readonly label: string;
  stream: string;
  rpc: string;
}

/**
 * The live `watch` screen: folds the session's stream as it arrives and redraws on every message,
 * shows the oldest unanswered permission request with numbered options, and answers it when a
 * number key is pressed (`UserSession.answer`: the stream record, then the RPC). `q` ends it with 0, Ctrl-C or the abort signal
 * with 130; a stream that cannot be read any more ends it with that error.
 */
export class WatchView {
  private readonly fold = new SessionFold();
  private readonly answered = new Set<string>();
  private readonly answers: AnswerStatus[] = [];
  private activity: { active: boolean; thinking: boolean } | undefined;
  private unreadable = 0;
  private redrawQueued = false;
  private finished = false;

  constructor(
    private readonly session: UserSession,
    private readonly serverUrl: string,
    private readonly terminal: Terminal,
  ) {}

  /** Runs until `q`, Ctrl-C, `signal` or a fatal read error; resolves with the exit code. */
  run(signal?: AbortSignal): Promise<ExitCode> {
    return new Promise<ExitCode>((resolve, reject) => {
      const stops: Array<() => void> = [];
      const finish = (outcome: ExitCode | Error): void => {
        if (this.finished) return;
        this.finished = true;
        for (const stop of stops) stop();
        this.terminal.write(SHOW_CURSOR);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      if (signal?.aborted) return finish(EXIT.interrupted);
      const onAbort = (): void => finish(EXIT.interrupted);
      signal?.addEventListener('abort', onAbort, { once: true });
      stops.push(() => signal?.removeEventListener('abort', onAbort));

      const events: Subscription = this.session.events$({ afterSeq: 0 }).subscribe({
        next: (event) => {
          if (event.kind === 'message') this.fold.apply(event.message);
          else this.unreadable += 1;
          this.scheduleRedraw();
        },
        error: (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
      });
      stops.push(() => events.unsubscribe());

      const activity = this.session.activity$.subscribe((now) => {
        this.activity = now;
        this.scheduleRedraw();
      });
      stops.push(() => activity.unsubscribe());

      stops.push(
        this.terminal.onKeys((keys) => {
          for (const key of keys) {
            if (key === CTRL_C) return finish(EXIT.interrupted);
            if (key === 'q') return finish(EXIT.ok);
            if (key >= '1' && key <= '9') this.answer(Number(key) - 1);
          }
        }),
      );
      stops.push(this.terminal.onResize(() => this.scheduleRedraw()));
      if (this.terminal.isTTY) this.terminal.write(HIDE_CURSOR);
      this.redraw();
    });
  }

  private pending(): PermissionRequestMessage[] {
    return this.fold.pendingPermissions.filter((r) => !this.answered.has(r.callId));
  }

  private answer(index: number): void {
    const request = this.pending()[0];
    if (!request) return;
    const option = request.options[index];
    if (!option) {
      this.note({ label: `there is no option ${index + 1}`, stream: '', rpc: '' });
      return;
    }
    this.answered.add(request.callId);
    const status: AnswerStatus = {
      label: `${option.label} for ${request.toolName}`,
      stream: 'recording…',
      rpc: 'waiting',
    };
    this.note(status);
    void this.session.answer(request, option.id).then((answer) => {
      if (answer.status === 'settled') {
        this.changed(() => {
          status.stream = 'not sent: the request was settled already';
          status.rpc = 'not sent';
        });
        return;
      }
      answer.recorded?.then(
        (delivered) => this.changed(() => (status.stream = `recorded (seq ${delivered.seq})`)),
        (error: unknown) =>
          this.changed(() => {
            status.stream = `not recorded: ${error instanceof Error ? error.message : String(error)}`;
            // Nothing is on record, so the prompt comes back for another try.
            this.answered.delete(request.callId);
          }),
      );
      void answer.rpc?.then((outcome) => this.changed(() => (status.rpc = describeRpc(outcome))));
    });
  }

  private note(status: AnswerStatus): void {
    this.answers.push(status);
    if (this.answers.length > STATUS_LINES) this.answers.shift();
    this.scheduleRedraw();
  }

  private changed(apply: () => void): void {
    apply();
    this.scheduleRedraw();
  }

  private scheduleRedraw(): void {
    if (this.redrawQueued || this.finished) return;
    this.redrawQueued = true;
    // Coalesces a burst of messages (a catch-up page) into one redraw.
    setImmediate(() => {
      this.redrawQueued = false;
      if (!this.finished) this.redraw();
    });
  }

  private redraw(): void {
    const pending = this.pending();
    const lines = renderWatchScreen(
      {
        sessionId: this.session.id,
        title: this.session.title,
        serverUrl: this.serverUrl,
        fold: this.fold,
        activity: this.activity,
        unreadable: this.unreadable,
        prompt: pending[0],
        waiting: Math.max(0, pending.length - 1),
        status: this.answers.map((a) =>
          a.stream === '' ? a.label : `${a.label}: stream ${a.stream} · permission RPC ${a.rpc}`,
        ),
      },
      { rows: this.terminal.rows, columns: this.terminal.columns },
    );
    const text = lines.join('\n') + '\n';
    this.terminal.write(this.terminal.isTTY ? CLEAR + text : text + '\n');
  }
}
