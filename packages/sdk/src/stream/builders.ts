import type { PlanEntry, SessionMessage, TurnEndStatus } from '../protocol/sessionMessage.js';
import type { TextStream, TextStreamOptions } from './textStream.js';
import type { AttachInput, AttachOptions, PermissionDecision, PermissionRequestOptions } from './plugins.js';
import type { Delivery } from './types.js';
import type { AskOptions, AskQuestion, AskResult } from './questionPorts.js';

/**
 * The builders a writer hands out, as their users see them: a {@link Turn}, the {@link Scope}s
 * content is written through, and the {@link ToolCall}s made in them. Interfaces in a file of their
 * own, so that a scope (which makes calls) and a call (which opens scopes) are written without
 * importing each other (docs/architecture.md, "Floors of the SDK").
 */

/** What a tool call is: the fields of its `tool-call-start` (docs/protocol.md, "tool-call-start"). */
export interface ToolCallOptions {
  /** Tool name, e.g. `bash`, `edit`, `grep`. */
  readonly toolName: string;
  /** Short human-readable summary (inline markdown); default: the tool name. */
  readonly title?: string;
  /** Longer description (inline markdown); default empty. */
  readonly description?: string;
  /**
   * Tool input arguments, JSON-like data; default `{}`. The call keeps a deeply frozen copy made
   * when it is created: what is shown, run and granted is that copy (docs/permissions-policy.md,
   * "What runs is what was shown").
   */
  readonly args?: Record<string, unknown>;
  /** Call id; default a fresh cuid2. */
  readonly callId?: string;
  /**
   * Label of the subagent this call spawns. It goes on the `tool-call-start`; the subagent's
   * messages are written through {@link ToolCall.scope}.
   */
  readonly agentTitle?: string;
  /** Id of the subagent this call spawns; default a fresh cuid2 when `agentTitle` is given. */
  readonly agentId?: string;
  /**
   * What the tool does (read, edit, execute, fetch, ...), for permission policy. Not on the wire;
   * an unknown kind is treated as the most dangerous.
   */
  readonly kind?: string;
  /**
   * `false` stores this call's own messages (`tool-call-start`, `permission-request`,
   * `tool-call-end`) without redacting secrets (docs/redaction.md, "Opting out"). Its executor gets
   * the real arguments either way.
   */
  readonly redact?: boolean;
  /**
   * The `callId` of a call a dead process left that this one takes up again: it goes on the
   * `tool-call-start` (`resumes`), so a reader links the two. `session.resume()` sets it
   * (docs/recovery.md, "Interrupted calls").
   */
  readonly resumes?: string;
}

/** Options of {@link ToolCall.end}. */
export interface ToolCallEndOptions {
  /**
   * Why the call failed; leave out on success. A text over `MAX_END_TEXT_BYTES` is cut to fit the
   * record, with a note of how much was cut; {@link ToolCall.error} keeps it whole.
   */
  readonly error?: string;
}

/** Options of {@link Scope.step}. */
export interface StepOptions {
  /** Tool name of the step's call; default `step`. */
  readonly toolName?: string;
  readonly description?: string;
  readonly args?: Record<string, unknown>;
}

/** What {@link ToolCall.run} did. */
export type RunResult<T> =
  | { readonly status: 'done'; readonly value: T; readonly decision: PermissionDecision }
  | { readonly status: 'failed'; readonly error: unknown; readonly decision: PermissionDecision }
  | { readonly status: 'denied' | 'cancelled'; readonly decision: PermissionDecision };

/** What the executor of {@link ToolCall.run} is given. */
export interface RunContext {
  /** The call being run. */
  readonly call: ToolCall;
  /** The decision that allowed it. */
  readonly decision: PermissionDecision;
  /** Aborted when the user stops the turn or the call's own `signal` aborts: stop the work then. */
  readonly signal: AbortSignal;
}

/**
 * Where agent content goes: the turn itself, or the inside of a tool call. Every message written
 * through a scope carries its `turn`, and inside a call `parentId` = that call and `agentId` of the
 * subagent, if any (docs/protocol.md, "parentId: nesting", "agentId: subagent identity").
 */
export interface Scope {
  /** The call this scope is inside, or undefined at the top of the turn. */
  readonly parentId: string | undefined;
  /** The subagent whose messages these are, if any. */
  readonly agentId: string | undefined;
  /** The call owning this scope, or undefined at the top of the turn. */
  readonly owner: ToolCall | undefined;
  /** The turn id every message of this scope carries. */
  readonly turnId: string;
  /**
   * Appends agent text (markdown). `thinking: true` marks reasoning; `thinking: false` is written
   * out explicitly, as some producers do. `redact: false` stores it without redacting secrets.
   */
  text(text: string, options?: { thinking?: boolean; redact?: boolean }): Delivery;
  /** Appends reasoning text (`thinking: true`). */
  thinking(text: string): Delivery;
  /** Appends a `service` message: system status, not model output. */
  service(text: string): Delivery;
  /**
   * Appends a `plan`: the agent's whole plan as it stands now, replacing the one before
   * (docs/protocol.md, "plan"). Today's app shows it as a `TodoWrite` checklist and, for the main
   * agent, as the session's todo list (docs/v1-format.md, "Plans").
   */
  plan(entries: readonly PlanEntry[]): Delivery;
  /**
   * Opens a stream of text written delta by delta (an LLM's output), appended as a few complete
   * `text` messages at paragraph ends, after an idle window or at a size bound; `end()` writes the
   * rest, and the turn's stop ends it with the text so far stored (docs/streaming.md).
   */
  textStream(options?: TextStreamOptions): TextStream;
  /**
   * Appends `tool-call-start` and returns the call. The writer guarantees it gets exactly one
   * `tool-call-end`: by {@link ToolCall.end}, or with error `cancelled` when its parent or turn ends
   * first. Throws `SdkError` (`stream.invalid_message`) when the options do not validate, among
   * them `args` that are not JSON-like data.
   */
  toolCall(options: ToolCallOptions): ToolCall;
  /**
   * Pipeline sugar: runs `fn` inside a new tool call's scope. The call ends when `fn` settles, with
   * `error` when it throws; the error is rethrown, so enclosing steps fail too and name this step.
   */
  step<T>(
    title: string,
    fn: (scope: Scope, call: ToolCall) => T | Promise<T>,
    options?: StepOptions,
  ): Promise<T>;
  /**
   * Sends a photo, video or file: detects the kind from the content, computes dimensions and a
   * ThumbHash, encrypts and uploads it, and only then appends the message that references it.
   * Needs the media pipeline (`happy-session/media`, installed by `connect()`).
   */
  attach(input: AttachInput, options?: AttachOptions): Promise<SessionMessage>;
  /**
   * Asks the person one or more questions (single choice, several choices, or their own text) and
   * waits for the first valid answer (docs/questions.md): appends `question`, mirrors it into
   * agentState as the app's form, and resolves with the answers, or `cancelled` (the person
   * dismissed it, or `options.signal` aborted), `timed_out` (`options.timeoutMs`), `stopped` (the
   * turn was stopped or ended, or the call this scope is inside ended). A late or bad answer gets a
   * typed refusal on its channel and changes nothing here; it rejects only when the `question`
   * could not be stored (nobody can answer it), with the delivery's error. Needs the question desk
   * (installed by `connect()`). Throws `SdkError` `questions.invalid` for questions that do not
   * validate.
   */
  ask(questions: readonly AskQuestion[], options?: AskOptions): Promise<AskResult>;
}

/**
 * One agent turn, from `turn-start` to `turn-end` (docs/protocol.md, "turn-start", "turn-end").
 * It is the top-level scope of the turn's content.
 */
export interface Turn extends Scope {
  /** Delivery of the `turn-start`. */
  readonly started: Delivery;
  /** The turn id. */
  readonly id: string;
  /** True once `turn-end` has been appended. */
  readonly ended: boolean;
  /**
   * Aborted when the user asks to stop (the `abort` RPC), when {@link Turn.abort} is called, or when
   * the turn ends. Every permission request of the turn follows it (docs/permissions.md,
   * "Cancellation and time"); pass it to whatever else the turn waits on.
   */
  readonly signal: AbortSignal;
  /**
   * Aborts {@link Turn.signal}: pending permission requests of the turn resolve `cancelled` and
   * their tools do not run. The turn stays open until {@link Turn.end}.
   */
  abort(reason?: unknown): void;
  /**
   * Appends `turn-end`. Open tool calls end first, deepest first, with error `cancelled` (which also
   * cancels their pending permission requests). Without a status, a turn that was stopped
   * ({@link Turn.abort}, the app's stop) ends `cancelled` and any other `completed`. Ending twice
   * returns the first delivery.
   */
  end(status?: TurnEndStatus): Delivery;
}

/** One tool invocation, from `tool-call-start` to its one `tool-call-end`. */
export interface ToolCall {
  readonly callId: string;
  readonly toolName: string;
  readonly title: string;
  readonly description: string;
  /**
   * The arguments as the call copied them when it was made, deeply frozen: what its
   * `tool-call-start` and `permission-request` show and what {@link ToolCall.run} runs.
   */
  readonly args: Readonly<Record<string, unknown>>;
  readonly kind: string | undefined;
  readonly agentTitle: string | undefined;
  /** The subagent id its scope uses by default (when the call spawns a subagent). */
  readonly agentId: string | undefined;
  /** `false` when the call opted out of redaction. */
  readonly redact: boolean | undefined;
  /** The call whose scope this call was made in, if any. */
  readonly parentCall: ToolCall | undefined;
  /** Delivery of the `tool-call-start`. */
  readonly started: Delivery;
  /** The turn this call belongs to. */
  readonly turnId: string;
  /**
   * The turn's signal: aborted when the user stops the turn (the app's stop, `turn.abort()`) or the
   * turn ends. {@link ToolCall.requestPermission} and {@link ToolCall.run} follow it by default.
   */
  readonly signal: AbortSignal;
  /** The scope the call was made in: its `tool-call-start` and `tool-call-end` carry that scope's parent and agent. */
  readonly parent: Scope;
  /** True once `tool-call-end` has been appended. */
  readonly ended: boolean;
  /** The error the call ended with, if it ended with one. */
  readonly error: string | undefined;
  /** True when `other` is this call or nested (at any depth) inside it. */
  contains(other: ToolCall): boolean;
  /**
   * Appends the call's one `tool-call-end`. Calls still open inside it end first, with error
   * `cancelled`. Ending twice returns the first delivery and appends nothing. It does not throw
   * except for a call of a turn the program ended itself (`stream.turn_ended`): what cannot be
   * appended as given is logged and the delivery rejects (docs/architecture.md, "Builders").
   */
  end(options?: ToolCallEndOptions): Delivery;
  /**
   * Asks the user (or the policy) whether this call may run: appends `permission-request` and
   * waits for the first valid answer. Resolves for every answer; every outcome other than `allow`
   * has already ended the call. The request follows the turn's {@link ToolCall.signal} as well as
   * `options.signal`: either aborting resolves it `cancelled`. Rejects only when the
   * `permission-request` could not be stored (its delivery failed: nobody can answer it), with that
   * delivery's error; the call has then ended with an error. Needs the permission gate (installed
   * by `connect()`, or `await PermissionGate.create({ writer })`). Throws `SdkError` only for bad
   * configuration (invalid options, `onTimeout: 'allow'`).
   */
  requestPermission(options?: PermissionRequestOptions): Promise<PermissionDecision>;
  /**
   * Gates, then runs: the executor runs only on allow, with the call's frozen arguments (or the
   * user's validated `updatedInput`, frozen as well), and the call ends with the outcome (`error` on
   * deny, cancel or a throwing executor). A stop of the turn (or of `options.signal`) before the
   * executor starts cancels the call instead, and so does an executor that throws once the stop
   * came (`cancelled`). The result says what happened; it rejects only when
   * the permission request could not be stored (see {@link ToolCall.requestPermission}), and the
   * executor has not run.
   */
  run<T>(
    executor: (args: Readonly<Record<string, unknown>>, context: RunContext) => T | Promise<T>,
    options?: PermissionRequestOptions,
  ): Promise<RunResult<T>>;
  /**
   * A scope inside this call: messages written through it carry `parentId` = this call, and
   * `agentId` of the subagent (given here, given at creation, or inherited from the enclosing scope).
   */
  scope(options?: { agentId?: string; agentTitle?: string }): Scope;
}
