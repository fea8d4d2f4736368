import { expect } from 'vitest';
import type { SessionMessage } from 'happy-session';

/**
 * The v2 invariants a stored stream holds (docs/architecture.md, "Builders"): every turn-end and
 * tool-call-end has its start earlier in the stream, at most one end per start, every
 * permission-request names a started call, every permission-response a request.
 */
export function expectV2Invariants(messages: readonly SessionMessage[]): void {
  const turns = new Set<string>();
  const turnEnds = new Set<string>();
  const calls = new Set<string>();
  const callEnds = new Set<string>();
  const requests = new Set<string>();
  for (const m of messages) {
    switch (m.type) {
      case 'turn-start':
        turns.add(m.turn);
        break;
      case 'turn-end':
        expect(turns.has(m.turn), `turn-end of ${m.turn} has its turn-start`).toBe(true);
        expect(turnEnds.has(m.turn), `one turn-end for ${m.turn}`).toBe(false);
        turnEnds.add(m.turn);
        break;
      case 'tool-call-start':
        calls.add(m.callId);
        break;
      case 'tool-call-end':
        expect(calls.has(m.callId), `tool-call-end of ${m.callId} has its tool-call-start`).toBe(true);
        expect(callEnds.has(m.callId), `one tool-call-end for ${m.callId}`).toBe(false);
        callEnds.add(m.callId);
        break;
      case 'permission-request':
        expect(calls.has(m.callId), `permission-request of ${m.callId} names a started call`).toBe(true);
        requests.add(m.callId);
        break;
      case 'permission-response':
        expect(requests.has(m.callId), `permission-response of ${m.callId} has its request`).toBe(true);
        break;
    }
  }
}
