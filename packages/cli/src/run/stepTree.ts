import type { AttachProgress, Scope, ToolCall, Turn } from 'happy-session';
import { stepErrorOf } from './exitStatus.js';
import type { ExitStatus } from './exitStatus.js';
import { OutputLog } from './outputLog.js';
import type { OutputLimits } from './outputLog.js';

/** What a step is: the command it runs and where it goes. */
export interface StepStart {
  readonly id: string;
  /** The step it nests under; undefined for the outermost one (then it is in the turn). */
  readonly parent?: string;
  readonly title: string;
  readonly command: readonly string[];
  readonly cwd: string;
}

/** One running step: its tool call, its output and the step around it. */
export interface Step {
  readonly id: string;
  readonly call: ToolCall;
  readonly log: OutputLog;
  readonly parent: Step | undefined;
  readonly commandLine: string;
}

/**
 * The steps of one `happy-session run` tree, all written by the outermost run's one writer: each
 * step a `bash` tool call in its parent step's scope (the turn for the outermost), its output text
 * inside it. One writer for the whole tree keeps the stream's invariants: time never goes
 * backwards, and the writer ends any step still open inside one that ends.
 */
export class StepTree {
  private readonly steps = new Map<string, Step>();

  constructor(
    private readonly turn: Turn,
    private readonly limits?: OutputLimits,
  ) {}

  /** The step, if it is known and still running. */
  get(id: string): Step | undefined {
    const step = this.steps.get(id);
    return step && !step.call.ended ? step : undefined;
  }

  /** Appends the step's `tool-call-start` under its parent. Throws when the parent is not running. */
  start(start: StepStart): Step {
    if (this.steps.has(start.id)) throw new Error(`step ${start.id} already exists`);
    const parent = start.parent === undefined ? undefined : this.get(start.parent);
    if (start.parent !== undefined && parent === undefined) {
      throw new Error(`step ${start.parent} is not running (it ended, or never existed)`);
    }
    const scope: Scope = parent ? parent.call.scope() : this.turn;
    const commandLine = quoteCommand(start.command);
    const call = scope.toolCall({
      callId: start.id,
      toolName: 'bash',
      title: start.title,
      description: commandLine === start.title ? '' : `\`${commandLine}\``,
      args: { command: commandLine, cwd: start.cwd },
      kind: 'execute',
    });
    const inside = call.scope();
    const log = new OutputLog(
      (markdown) => {
        if (!call.ended) void inside.text(markdown);
      },
      () => ancestorsOf(parent),
      this.limits,
    );
    const step: Step = { id: start.id, call, log, parent, commandLine };
    this.steps.set(start.id, step);
    return step;
  }

  /**
   * Sends a file into the step (a photo or video over the server's limit is re-encoded to fit,
   * docs/media.md), its progress shown by `onProgress`. Rejects with the media error.
   */
  async attach(id: string, path: string, onProgress: (progress: AttachProgress) => void): Promise<void> {
    const step = this.get(id);
    if (!step) throw new Error(`step ${id} is not running`);
    step.log.flushNow();
    await step.call.scope().attach(path, { fit: 'auto', onProgress });
  }

  /** Writes what is left of the step's output and its `tool-call-end`, with the error its status says. */
  end(id: string, status: ExitStatus): void {
    const step = this.get(id);
    if (!step) return;
    step.log.finish();
    const error = stepErrorOf(status, step.log.lastLines(), step.commandLine);
    step.call.end(error === undefined ? {} : { error });
  }

  /** Ends a step whose reporter went away without saying how its command ended. */
  abandon(id: string, reason: string): void {
    const step = this.get(id);
    if (!step) return;
    step.log.finish();
    step.call.end({ error: reason });
  }
}

function ancestorsOf(step: Step | undefined): OutputLog[] {
  const logs: OutputLog[] = [];
  for (let s = step; s; s = s.parent) logs.push(s.log);
  return logs;
}

/** A command line as a shell would take it back: words with spaces or quotes are quoted. */
export function quoteCommand(command: readonly string[]): string {
  return command
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}
