import type { Agent, AgentInputItem, RunState, RunStreamEvent, RunToolApprovalItem } from '@openai/agents';
import { SdkError } from '../../errors.js';
import type { TurnEndStatus } from '../../protocol/sessionMessage.js';
import type { RunContext, Turn } from '../../stream/builders.js';
import type { PermissionRequestOptions } from '../../stream/plugins.js';
import { CallRegistry } from '../callRegistry.js';
import type { AdapterToolInfo } from '../toolCalls.js';
import { AgentsEventMirror, DEFAULT_TOOL_ERROR, idOf } from './eventMirror.js';

/** What the bridge needs of a session: a turn to write into (`Session` has it). */
export interface AgentsTurnSource {
  /** Starts a turn (`Session.turn()`). */
  turn(): Turn;
}

/** A run's state, as the framework's `RunState` (any context, any agent). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AgentsRunState = RunState<any, Agent<any, any>>;

/** What a run starts from: the person's prompt, items, or a state that waits for approvals. */
export type AgentsInput = string | AgentInputItem[] | AgentsRunState;

/** The part of the streamed run's result (`run(agent, input, { stream: true })`) the bridge reads. */
export interface AgentsStream extends AsyncIterable<RunStreamEvent> {
  /** Settles once the run has stopped: completed, interrupted or failed. */
  readonly completed: Promise<void>;
  /** The calls waiting for approval when the run stopped. */
  readonly interruptions: RunToolApprovalItem[];
  /** The run's state, which approvals are written into and the run resumes from. */
  readonly state: AgentsRunState;
  /** The last agent's output, once the run completed. */
  readonly finalOutput?: unknown;
  /** What failed the run, if it failed. */
  readonly error: unknown;
}

/** What the bridge hands the function that starts a run. */
export interface AgentsCall {
  /** Aborted when the person stops the turn: pass it as `run(…, { stream: true, signal })`. */
  readonly signal: AbortSignal;
}

/** Starts one streamed run: `(input, { signal }) => runner.run(agent, input, { stream: true, signal })`. */
export type AgentsStart = (input: AgentsInput, call: AgentsCall) => PromiseLike<AgentsStream>;

/** How every approval is asked: the gate's per-request options (docs/permissions.md). */
export type AgentsApprovalOptions = Omit<PermissionRequestOptions, 'signal'>;

/** Options of {@link OpenAiAgentsBridge}. */
export interface OpenAiAgentsBridgeOptions {
  /** What the gate and the app should know of each tool, by name. */
  readonly tools?: Readonly<Record<string, AdapterToolInfo>>;
  /** Options of every permission request (a timeout, the choices offered). */
  readonly approval?: AgentsApprovalOptions;
  /**
   * Whether a tool's output means it failed. Default: it is the framework's default error text
   * (what a tool without an `errorFunction` returns when it throws).
   */
  readonly isToolError?: (output: unknown) => boolean;
  /** Rounds of approvals one turn may take before it fails; default 100. */
  readonly maxRounds?: number;
}

/** Options of {@link OpenAiAgentsBridge.run}. */
export interface AgentsTurnOptions {
  /** The turn to write into; default a new turn of the session. */
  readonly turn?: Turn;
  /**
   * Called with the serialised `RunState` each time the run stops for approvals, before they are
   * asked: keep it, and a restarted program resumes the run from it
   * (`RunState.fromString(agent, saved)` as this bridge's `run` input).
   */
  readonly onInterrupted?: (state: string) => void | Promise<void>;
}

/** How a turn went. */
export interface AgentsTurnResult {
  /** The turn's end: `cancelled` when the person stopped it. */
  readonly status: TurnEndStatus;
  /** The id of the session's turn. */
  readonly turnId: string;
  /** The run's final output, when it completed. */
  readonly finalOutput?: unknown;
  /** The last run's state. */
  readonly state?: AgentsRunState;
  /**
   * The conversation after the turn, the next turn's input (`[...history, nextPrompt]`): the last
   * run's `state.history` (or the turn's input), with an output for every function call the turn
   * left without one (stopped, cancelled or failed), so the model is never handed a call without
   * its result.
   */
  readonly history: AgentInputItem[];
  /** What failed the turn, when it failed. */
  readonly error?: unknown;
  /**
   * True when the turn was ended from outside (the session closing) while calls still waited for
   * approvals: the state `onInterrupted` saved can resume them. A stop by the person is not that.
   */
  readonly pending: boolean;
}

/** The event an agent used as a tool streams (`agent.asTool({ onStream })`). */
export interface AgentToolStreamEvent {
  /** An event of the nested agent's run. */
  readonly event: RunStreamEvent;
  /** The outer call that runs the agent. */
  readonly toolCall?: { readonly callId?: string };
}

const DEFAULT_MAX_ROUNDS = 100;

/**
 * OpenAI Agents JS on a session (docs/integrations.md): {@link OpenAiAgentsBridge.run} mirrors a
 * streamed run into a turn, asks the session's permission gate for each interruption, approves or
 * rejects it in the run's state and resumes the run; {@link OpenAiAgentsBridge.onStream} nests
 * the messages of an agent used as a tool under that tool's call.
 */
export class OpenAiAgentsBridge {
  private readonly calls = new CallRegistry();
  private readonly nested = new Map<string, AgentsEventMirror>();
  /** Aborted each when its run ends: what waiting for a nested agent's call follows. */
  private readonly running = new Set<AbortSignal>();
  private readonly tools: {
    info: Readonly<Record<string, AdapterToolInfo>>;
    isError: (output: unknown) => boolean;
  };

  constructor(
    private readonly session: AgentsTurnSource,
    private readonly options: OpenAiAgentsBridgeOptions = {},
  ) {
    this.tools = {
      info: options.tools ?? {},
      isError: options.isToolError ?? ((output) => outputIsDefaultError(output)),
    };
  }

  /**
   * Runs one turn from `input` (the prompt, or a `RunState` restored after a restart: its waiting
   * calls are asked again first), mirrors each streamed run, and resumes it after every round of
   * approvals until it completes, fails or the person stops it. Ends the turn with its outcome.
   */
  async run(
    start: AgentsStart,
    input: AgentsInput,
    options: AgentsTurnOptions = {},
  ): Promise<AgentsTurnResult> {
    const turn = options.turn ?? this.session.turn();
    const mirror = new AgentsEventMirror(turn, this.calls, this.tools);
    const maxRounds = this.options.maxRounds ?? DEFAULT_MAX_ROUNDS;
    let status: TurnEndStatus = 'completed';
    let error: unknown;
    let finalOutput: unknown;
    let state: AgentsRunState | undefined;
    let next: AgentsInput | undefined = input;
    let pending = false;
    const running = new AbortController();
    this.running.add(running.signal);
    try {
      // The gate approves one call at a time; a standing approval of a whole tool in a state
      // handed in was not the gate's, and would run every later call of it unasked.
      const standing = isRunState(input) ? standingApprovals(input) : [];
      if (standing.length > 0) throw foreignApproval(standing);
      // A state restored after a restart still waits for its calls: they are asked again first.
      if (isRunState(input) && input.getInterruptions().length > 0) {
        if (!(await this.answer(input, input.getInterruptions(), mirror))) {
          next = undefined;
          pending = turn.ended;
          status = 'cancelled';
        }
      }
      for (let round = 0; next !== undefined && !turn.signal.aborted; round++) {
        const stream = await start(next, { signal: turn.signal });
        for await (const event of stream) await mirror.event(event);
        await stream.completed;
        state = stream.state;
        if (turn.signal.aborted) break;
        if (stream.error !== undefined && stream.error !== null) {
          status = 'failed';
          error = stream.error;
          break;
        }
        if (stream.interruptions.length === 0) {
          finalOutput = stream.finalOutput;
          break;
        }
        if (round + 1 >= maxRounds) {
          status = 'failed';
          error = new Error(`The run stopped for approvals ${maxRounds} times; stopped there.`);
          break;
        }
        await options.onInterrupted?.(stream.state.toString());
        if (!(await this.answer(stream.state, stream.interruptions, mirror))) {
          pending = turn.ended;
          status = 'cancelled';
          break;
        }
        next = stream.state;
      }
    } catch (thrown) {
      if (!turn.signal.aborted) {
        status = 'failed';
        error = thrown;
      }
    } finally {
      this.running.delete(running.signal);
      running.abort();
      this.calls.forget(mirror.callIds);
    }
    if (status === 'completed') mirror.finish();
    if (status === 'completed' && turn.signal.aborted) status = 'cancelled';
    turn.end(status);
    return {
      status,
      turnId: turn.id,
      pending,
      history: withEveryOutput(historyOf(state ?? input), status),
      ...(finalOutput !== undefined ? { finalOutput } : {}),
      ...(state ? { state } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  }

  /**
   * Pass as `agent.asTool({ onStream: bridge.onStream })`: the agent's messages nest inside the
   * call of the tool that runs it (give the tool an `agentTitle` in the bridge's `tools`).
   */
  readonly onStream = async (event: AgentToolStreamEvent): Promise<void> => {
    const callId = event.toolCall?.callId;
    // Outside the bridge's runs there is no call to nest under.
    if (callId === undefined || this.running.size === 0) return;
    let call;
    try {
      call = await this.calls.whenStarted(callId, AbortSignal.any([...this.running]));
    } catch {
      return;
    }
    let mirror = this.nested.get(callId);
    if (!mirror) {
      mirror = new AgentsEventMirror(call.scope(), this.calls, this.tools);
      this.nested.set(callId, mirror);
    }
    if (call.ended) {
      this.nested.delete(callId);
      return;
    }
    await mirror.event(event.event);
  };

  /**
   * What `commandExecutor()` of `happy-session/sandbox` needs to run an approved call's command
   * from the tool's `execute`, with the call id and signal the framework passes in its details:
   * `commandExecutor(options)(input, await bridge.runContext(details.toolCall.callId, { signal: details.signal }))`.
   * The call's stop kills the command's whole process group; the bridge writes the tool's result
   * into the call, so `streamOutput: false` keeps the output from showing twice (docs/integrations.md,
   * "Running a tool's command").
   * @throws {SdkError} `integration.not_approved` for a call the person did not allow through the bridge.
   */
  runContext(callId: string, options: { signal?: AbortSignal } = {}): Promise<RunContext> {
    return this.calls.runContext(callId, options.signal);
  }

  /**
   * Asks the gate for each waiting call and writes its answer into the run's state; false when a
   * request was cancelled (the turn stopped, or a timeout that cancels).
   */
  private async answer(
    state: AgentsRunState,
    items: readonly RunToolApprovalItem[],
    mirror: AgentsEventMirror,
  ): Promise<boolean> {
    const decisions = await Promise.all(
      items.map(async (item) => {
        const call = mirror.callFor(item.rawItem as unknown as Record<string, unknown>, item.toolName);
        return { item, call, decision: await call.requestPermission(this.options.approval ?? {}) };
      }),
    );
    if (decisions.some((d) => d.decision.outcome === 'cancelled')) return false;
    for (const { item, call, decision } of decisions) {
      if (decision.outcome === 'deny') {
        state.reject(item, { message: decision.message ?? 'Denied by the user.' });
      } else if (decision.updatedInput) {
        // The framework binds an approval to the call's own arguments: an edit cannot run as
        // this call. The model is told the person's input, and may call the tool with it.
        state.reject(item, {
          message: `The user changed the input before allowing it; call the tool again with this input: ${JSON.stringify(decision.updatedInput)}`,
        });
        call.end({
          error: 'Not run: the user edited the input, and the model was asked to call again with it.',
        });
      } else {
        const id = idOf(item.rawItem as unknown as Record<string, unknown>);
        if (id !== undefined) this.calls.allow(id, decision);
        state.approve(item);
      }
    }
    return true;
  }
}

/** `new OpenAiAgentsBridge(session, options)`. */
export function openAiAgentsBridge(
  session: AgentsTurnSource,
  options: OpenAiAgentsBridgeOptions = {},
): OpenAiAgentsBridge {
  return new OpenAiAgentsBridge(session, options);
}

/**
 * The tools a run state approves for good (`state.approve(item, { alwaysApprove: true })`): the
 * bridge never gives such an approval, so one in a state handed to `run()` is not the gate's.
 */
function standingApprovals(state: AgentsRunState): string[] {
  let approvals: unknown;
  try {
    approvals = (state._context.toJSON() as { approvals?: unknown }).approvals;
  } catch {
    // A state whose approvals cannot be read is not run: fail closed.
    return ['(unreadable approvals)'];
  }
  if (typeof approvals !== 'object' || approvals === null) return [];
  return Object.entries(approvals as Record<string, { approved?: unknown }>).flatMap(([tool, record]) =>
    record?.approved === true ? [tool] : [],
  );
}

function foreignApproval(tools: readonly string[]): SdkError {
  return new SdkError(
    'integration.foreign_approval',
    `The run state approves ${tools.join(', ')} for every call; the session's gate approves one shown call at a time, so the run does not start.`,
    {
      hint: "approvals come from the session's gate during run(); pass the state run() or onInterrupted handed you, without approvals added",
    },
  );
}

function isRunState(input: AgentsInput): input is AgentsRunState {
  return typeof input === 'object' && !Array.isArray(input) && typeof input.getInterruptions === 'function';
}

function outputIsDefaultError(output: unknown): boolean {
  if (output === DEFAULT_TOOL_ERROR) return true;
  return (
    output !== null &&
    typeof output === 'object' &&
    (output as { text?: unknown }).text === DEFAULT_TOOL_ERROR
  );
}

/** The items a run went through: a state's history, or the input itself. */
function historyOf(input: AgentsInput): AgentInputItem[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return isRunState(input) ? [...input.history] : [...input];
}

/**
 * `items` with an output for each function call that has none: the Responses API refuses a call
 * without its output, and a stopped or cancelled turn leaves the calls it waited on so.
 */
function withEveryOutput(items: AgentInputItem[], status: TurnEndStatus): AgentInputItem[] {
  const answered = new Set(items.flatMap((i) => (i.type === 'function_call_result' ? [i.callId] : [])));
  const why =
    status === 'cancelled'
      ? 'The turn was stopped'
      : status === 'failed'
        ? 'The turn failed'
        : 'The turn ended';
  const closed: AgentInputItem[] = [];
  for (const item of items) {
    closed.push(item);
    if (item.type !== 'function_call' || answered.has(item.callId)) continue;
    answered.add(item.callId);
    closed.push({
      type: 'function_call_result',
      name: item.name,
      callId: item.callId,
      status: 'incomplete',
      output: { type: 'text', text: `${why} before the call ran; it did not run.` },
    });
  }
  return closed;
}
