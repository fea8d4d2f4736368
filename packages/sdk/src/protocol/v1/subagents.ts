import { isCuid } from '../ids.js';

/** A v2 subagent while its output is open in the v1 stream. */
export interface V1Subagent {
  /** The v1 `subagent` id: cuid2-shaped, as the app requires. */
  readonly id: string;
  /** The v2 `agentId` it stands for. */
  readonly agentId: string;
  /** Turn of the `start` marker; its `stop` carries the same. */
  readonly turn: string;
  /** The call whose end closes it (the `parentId` of its first message), if any. */
  readonly parentId: string | undefined;
}

interface OpenCall {
  readonly turn: string;
  readonly agentTitle: string | undefined;
  /** The v1 subagent id the first agent under this call takes; the app nests it under the card. */
  readonly reserved: string | undefined;
  claimed: boolean;
}

/**
 * Maps v2 subagents (`agentId` + `parentId`) to v1 `subagent` ids and decides when their `start`
 * and `stop` markers go out (docs/wire.md §6.3, "Sub-agent nesting").
 *
 * The app nests a subagent's output under the tool card whose `call` equals the `subagent` id, or
 * whose `args.sessionSubagent` does. So the first agent under a call takes the call's own id when
 * that id is cuid2-shaped (every app version links it), and otherwise a fresh cuid2 that the call's
 * `tool-call-start` advertises in `args.sessionSubagent` when it names a subagent (`agentTitle`).
 * An agent keeps its id while open, whatever `parentId` its later messages carry, so deeper
 * `parentId` chains inside one agent are flattened.
 */
export class SubagentTracker {
  private readonly calls = new Map<string, OpenCall>();
  private readonly open = new Map<string, V1Subagent>();

  constructor(private readonly createId: () => string) {}

  /**
   * Records a `tool-call-start`. Returns the id to put in `args.sessionSubagent`, when the call
   * names a subagent and its own id cannot serve as one.
   */
  callStarted(callId: string, turn: string, agentTitle: string | undefined): string | undefined {
    const ownId = isCuid(callId) ? callId : undefined;
    const reserved = ownId ?? (agentTitle !== undefined ? this.createId() : undefined);
    this.calls.set(callId, { turn, agentTitle, reserved, claimed: false });
    return reserved !== undefined && reserved !== callId ? reserved : undefined;
  }

  /**
   * The open subagent for `agentId`, opening it when needed. `opened` is true when its `start`
   * marker is due now; `title` is the spawning call's `agentTitle`.
   */
  resolve(
    agentId: string,
    parentId: string | undefined,
    turn: string,
  ): { subagent: V1Subagent; opened: boolean; title: string | undefined } {
    const existing = this.open.get(agentId);
    if (existing) return { subagent: existing, opened: false, title: undefined };
    const call = parentId !== undefined ? this.calls.get(parentId) : undefined;
    let id: string;
    if (call?.reserved !== undefined && !call.claimed) {
      call.claimed = true;
      id = call.reserved;
    } else {
      id = this.createId();
    }
    const subagent: V1Subagent = { id, agentId, turn, parentId };
    this.open.set(agentId, subagent);
    return { subagent, opened: true, title: call?.agentTitle };
  }

  /** Records a `tool-call-end`; returns the subagents it closes, whose `stop` is due. */
  callEnded(callId: string): V1Subagent[] {
    this.calls.delete(callId);
    return this.closeWhere((s) => s.parentId === callId);
  }

  /** Records a `turn-end`; returns the subagents still open in that turn, whose `stop` is due. */
  turnEnded(turn: string): V1Subagent[] {
    for (const [callId, call] of this.calls) if (call.turn === turn) this.calls.delete(callId);
    return this.closeWhere((s) => s.turn === turn);
  }

  private closeWhere(predicate: (subagent: V1Subagent) => boolean): V1Subagent[] {
    const closed: V1Subagent[] = [];
    for (const [agentId, subagent] of this.open) {
      if (!predicate(subagent)) continue;
      this.open.delete(agentId);
      closed.push(subagent);
    }
    return closed;
  }
}
