import { describe, expect, it } from 'vitest';
import { SdkError, isSdkError, MemoryTransport, SessionWriter } from 'happy-session';
import { PermissionGate } from 'happy-session/permissions';
import { generateDataKey } from 'happy-session/crypto';
import { FlakyTransport } from '../../helpers/flakyTransport.js';

describe('a permission request that is never stored', () => {
  it('rejects run() with the delivery error: the executor never runs, the call has ended, nothing is pending', async () => {
    const transport = new FlakyTransport(new MemoryTransport());
    const writer = new SessionWriter({ transport, key: { variant: 'dataKey', key: generateDataKey() } });
    const gate = await PermissionGate.create({ writer });
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'rm -rf dist' } });
    await writer.flush();

    transport.rejectNext = new SdkError('transport.rejected', 'HTTP 400', { details: { status: 400 } });
    let ran = false;
    const outcome = await call
      .run(() => (ran = true))
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(isSdkError(outcome, 'transport.rejected')).toBe(true);
    expect(ran).toBe(false);
    expect(call.ended).toBe(true);
    expect(call.error).toBe('permission request not stored');
    expect(gate.pendingCallIds).toEqual([]);
    gate.dispose();
  });
});
