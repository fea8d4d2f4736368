import { describe, expect, it } from 'vitest';
import { generateDataKey } from 'happy-session/crypto';
import { MemoryTransport, SessionReader, SessionWriter } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import { RESTARTED, takeOver } from '../../packages/sdk/src/session/succession.js';
import { recordingLogger } from '../helpers/recordingLogger.js';

// What a successor logs when it cannot end what a dead process left (docs/recovery.md, "What a
// successor does"): the shared `safely()` line, `successor write skipped` with the code, at warn.
async function leftByDeadProcess() {
  const transport = new MemoryTransport();
  const key = { variant: 'dataKey', key: generateDataKey() } as const;
  const dead = new SessionWriter({ transport, key });
  const call = dead.turn().toolCall({ toolName: 'Bash', args: { command: 'make' } });
  await dead.flush();
  const history: SessionMessage[] = await new SessionReader({ transport, key }).messages();
  return { transport, key, history, callId: call.callId };
}

describe('takeOver(): ending what a dead process left', () => {
  it('positive control: ends the open call and turn, and logs nothing', async () => {
    const { transport, key, history, callId } = await leftByDeadProcess();
    const successor = new SessionWriter({ transport, key });
    const { logger, lines } = recordingLogger();
    const interrupted = takeOver(history, {
      writer: successor,
      gate: undefined,
      questions: undefined,
      logger,
    });
    await successor.flush();
    expect(interrupted.calls.map((c) => c.callId)).toEqual([callId]);
    const stream = await new SessionReader({ transport, key }).messages();
    expect(stream.slice(history.length)).toMatchObject([
      { type: 'tool-call-end', callId, error: 'cancelled' },
      { type: 'turn-end', status: 'cancelled', reason: RESTARTED },
    ]);
    expect(lines).toEqual([]);
  });

  it('a write the successor cannot make is logged at warn with its code, once per end, and the rest goes on', async () => {
    const { transport, key, history, callId } = await leftByDeadProcess();
    const successor = new SessionWriter({ transport, key });
    await successor.close();
    const { logger, lines } = recordingLogger();
    const interrupted = takeOver(history, {
      writer: successor,
      gate: undefined,
      questions: undefined,
      logger,
    });
    expect(interrupted.calls.map((c) => c.callId)).toEqual([callId]);
    expect(lines).toEqual([
      ['warn', 'successor write skipped', { code: 'stream.closed' }],
      ['warn', 'successor write skipped', { code: 'stream.closed' }],
    ]);
  });
});
