import type { TextStreamPart, ToolSet } from 'ai';
import type { Scope } from '../../stream/builders.js';
import type { CallRegistry } from '../callRegistry.js';
import { PartText } from '../partText.js';
import type { AdapterToolInfo } from '../toolCalls.js';
import { endFailed, endWithOutput, errorText, startCall } from '../toolCalls.js';

/** One `tool-approval-request` part: the framework holds the call until it gets an answer. */
export interface ApprovalRequest {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The input the framework asks approval for (what it runs on an approval). */
  readonly input: unknown;
}

/** What the framework said of a call of an earlier round (an approved call runs then). */
export interface CarriedResult {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly output:
    | { readonly type: 'text'; readonly value: string }
    | { readonly type: 'json'; readonly value: unknown }
    | { readonly type: 'error-text'; readonly value: string }
    | { readonly type: 'execution-denied'; readonly reason?: string };
}

/** How one stream of the AI SDK ended. */
export interface StreamOutcome {
  readonly approvals: readonly ApprovalRequest[];
  /**
   * Framework call ids that came twice in this turn (two `tool-call` parts with one id): the
   * person was shown the first, so neither may run (issue 35, "one shown call = one run").
   */
  readonly duplicates: ReadonlySet<string>;
  /**
   * What the framework did, before the round's first step, with the calls answered after the last
   * round: their results, which its response messages leave out and the next round needs.
   */
  readonly carried: readonly CarriedResult[];
  /** The stream's `error` part, if it had one. */
  readonly error?: unknown;
  readonly aborted: boolean;
  /** The text of the stream, whole parts joined. */
  readonly text: string;
}

/**
 * Mirrors the AI SDK's `fullStream` into a scope (docs/integrations.md, "What each stream
 * becomes"): text and reasoning parts as whole messages, each tool call as the session's call with
 * its input, ended once by its result, error or denial; generated images as photos.
 */
export class AiStreamMirror {
  private readonly text = new PartText();
  private readonly mine = new Set<string>();

  constructor(
    private readonly scope: Scope,
    private readonly calls: CallRegistry,
    private readonly tools: Readonly<Record<string, AdapterToolInfo>>,
  ) {}

  /**
   * Writes the text of every part still open. The bridge calls it as the turn stops, so the words
   * the person saw streaming are stored before the stop ends the turn.
   */
  flushText(): void {
    this.text.endAll();
  }

  /** The framework ids of the calls this mirror started. */
  get callIds(): ReadonlySet<string> {
    return this.mine;
  }

  async consume(stream: AsyncIterable<TextStreamPart<ToolSet>>): Promise<StreamOutcome> {
    const approvals: ApprovalRequest[] = [];
    const duplicates = new Set<string>();
    const carried: CarriedResult[] = [];
    const texts: string[] = [];
    let error: unknown;
    let aborted = false;
    let stepped = false;
    const textOf = new Map<string, string>();
    for await (const part of stream) {
      switch (part.type) {
        case 'text-start':
          this.text.start(part.id, this.scope, false);
          textOf.set(part.id, '');
          break;
        case 'text-delta':
          this.text.delta(part.id, this.scope, false, part.text);
          textOf.set(part.id, (textOf.get(part.id) ?? '') + part.text);
          break;
        case 'text-end':
          this.text.end(part.id);
          texts.push(textOf.get(part.id) ?? '');
          textOf.delete(part.id);
          break;
        case 'reasoning-start':
          this.text.start(`reasoning:${part.id}`, this.scope, true);
          break;
        case 'reasoning-delta':
          this.text.delta(`reasoning:${part.id}`, this.scope, true, part.text);
          break;
        case 'reasoning-end':
          this.text.end(`reasoning:${part.id}`);
          break;
        case 'tool-call': {
          // A second call with an id already shown is not shown again, and neither of them runs.
          if (this.mine.has(part.toolCallId) || this.calls.get(part.toolCallId)) {
            duplicates.add(part.toolCallId);
            break;
          }
          const call = startCall(this.scope, part.toolName, part.input, this.tools[part.toolName]);
          this.mine.add(part.toolCallId);
          this.calls.add(part.toolCallId, call);
          break;
        }
        case 'tool-approval-request':
          if (part.isAutomatic) break;
          approvals.push({
            approvalId: part.approvalId,
            toolCallId: part.toolCall.toolCallId,
            toolName: part.toolCall.toolName,
            input: part.toolCall.input,
          });
          break;
        case 'tool-result': {
          if (part.preliminary) break;
          const call = this.calls.get(part.toolCallId);
          if (call) endWithOutput(call, part.output);
          if (!stepped) {
            carried.push({
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output:
                typeof part.output === 'string'
                  ? { type: 'text', value: part.output }
                  : { type: 'json', value: part.output ?? null },
            });
          }
          break;
        }
        case 'tool-error': {
          const call = this.calls.get(part.toolCallId);
          if (call) endFailed(call, part.error);
          if (!stepped) {
            carried.push({
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: { type: 'error-text', value: errorText(part.error) },
            });
          }
          break;
        }
        case 'tool-output-denied': {
          const call = this.calls.get(part.toolCallId);
          // The gate ended a call the person denied; one the framework denied by itself ends here.
          if (call && !call.ended) call.end({ error: 'Denied.' });
          if (!stepped) {
            carried.push({
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: { type: 'execution-denied' },
            });
          }
          break;
        }
        case 'file':
          if (part.file.mediaType.startsWith('image/')) await this.photo(part.file.uint8Array);
          break;
        case 'start-step':
          stepped = true;
          break;
        case 'error':
          error = part.error;
          break;
        case 'abort':
          aborted = true;
          break;
        default:
          break;
      }
    }
    this.text.endAll();
    return {
      approvals,
      duplicates,
      carried,
      error,
      aborted,
      text: texts.filter((t) => t.trim() !== '').join('\n\n'),
    };
  }

  /** An image the model made, as a photo; where it cannot be sent, a note says why. */
  private async photo(bytes: Uint8Array): Promise<void> {
    try {
      await this.scope.attach(bytes);
    } catch (error) {
      this.scope.service(`An image the model made could not be sent: ${errorText(error)}`);
    }
  }
}
