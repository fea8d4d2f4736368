import type { Subscription } from 'rxjs';
import type { PermissionOption } from 'happy-session';
import type { PermissionRequestMessage } from 'happy-session';
import { SessionFold } from 'happy-session';
import type { Account } from 'happy-session/node';
import type { SentPermissionAnswer, UserSession } from 'happy-session';

/**
 * Picks the option a scripted user answers a request with; undefined leaves it unanswered.
 * `signal` aborts when the request stops waiting (answered elsewhere, its call ended) or the user
 * closes: a script that asks a person then stops asking.
 */
export type PermissionScript = (
  request: PermissionRequestMessage,
  signal: AbortSignal,
) => PermissionOption | undefined | Promise<PermissionOption | undefined>;

/** The default script: the first `allow-once` option. */
export const allowOnce: PermissionScript = (request) => request.options.find((o) => o.kind === 'allow-once');

/** The demo's user: allows once, except a force push, which it denies. */
export const demoAnswers: PermissionScript = (request) => {
  const command = request.args?.command;
  const refuse = typeof command === 'string' && /\bpush\b.*--force/.test(command);
  return request.options.find((o) => o.kind === (refuse ? 'reject-once' : 'allow-once'));
};

/**
 * The demo's user, playing the Happy app from another connection of the same account: sends the
 * prompt as a user record and answers every permission request that shows up in the stream the
 * way the app's buttons do (see `answerPermission`), choosing by `script`.
 */
export class ScriptedUser {
  /** Every answer given, in order. */
  readonly answers: SentPermissionAnswer[] = [];
  private readonly fold = new SessionFold();
  private readonly subscription: Subscription;
  private readonly asking = new Map<string, AbortController>();
  private readonly answeredQuestions = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(
    readonly session: UserSession,
    private readonly script: PermissionScript,
  ) {
    this.subscription = session.events$({ afterSeq: 0 }).subscribe({
      next: (event) => {
        if (event.kind !== 'message') return;
        this.fold.apply(event.message);
        this.answerPending();
      },
      error: (error: unknown) => (this.failure = error),
    });
  }

  /** Opens `sessionId` of `account` from the user's side and starts watching it. */
  static async open(
    account: Account,
    sessionId: string,
    script: PermissionScript = allowOnce,
  ): Promise<ScriptedUser> {
    return new ScriptedUser(await account.session(sessionId), script);
  }

  /** Sends a text prompt. */
  async send(text: string): Promise<void> {
    await this.session.send(text);
  }

  /**
   * Stops watching and waits until every answer is recorded and its RPC settled.
   *
   * @throws the error that stopped reading the stream, or a failed recording.
   */
  async close(): Promise<void> {
    this.subscription.unsubscribe();
    for (const controller of this.asking.values()) controller.abort();
    try {
      await this.queue;
      await Promise.all(this.answers.flatMap((a) => [a.recorded, a.rpc]));
    } finally {
      await this.session.close();
    }
    if (this.failure !== undefined) throw this.failure;
  }

  /** The agent's questions: the scripted user picks the first option of each (docs/questions.md). */
  private answerQuestions(): void {
    for (const question of this.fold.pendingQuestions) {
      if (this.answeredQuestions.has(question.questionId)) continue;
      this.answeredQuestions.add(question.questionId);
      const answers = Object.fromEntries(
        question.questions.map((q) => [q.id, { options: q.options.slice(0, 1).map((o) => o.label) }]),
      );
      this.queue = this.queue
        .then(async () => {
          await this.session.answerQuestion(question.questionId, answers);
        })
        .catch((error: unknown) => {
          this.failure ??= error;
        });
    }
  }

  private answerPending(): void {
    this.answerQuestions();
    const pending = new Set(this.fold.pendingPermissions.map((r) => r.callId));
    for (const [callId, controller] of this.asking) if (!pending.has(callId)) controller.abort();
    for (const request of this.fold.pendingPermissions) {
      if (this.asking.has(request.callId)) continue;
      const controller = new AbortController();
      this.asking.set(request.callId, controller);
      // One question at a time, in request order: a person answers one prompt, then the next.
      this.queue = this.queue
        .then(async () => {
          if (controller.signal.aborted) return;
          const option = await this.script(request, controller.signal);
          if (option && !controller.signal.aborted) {
            const answer = await this.session.answer(request, option.id);
            if (answer.status === 'sent') this.answers.push(answer);
          }
        })
        .catch((error: unknown) => {
          this.failure ??= error;
        });
    }
  }
}
