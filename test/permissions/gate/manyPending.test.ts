import { describe, expect, it } from 'vitest';
import { PermissionGate } from 'happy-session/permissions';
import { generateDataKey } from 'happy-session/crypto';
import { MemoryTransport, SessionWriter } from 'happy-session';

describe('many permission requests pending on one turn', () => {
  it('hold no listener per request on the turn: no warning on the host console, and a stop still cancels every one', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const writer = new SessionWriter({
        transport: new MemoryTransport(),
        key: { variant: 'dataKey', key: generateDataKey() },
      });
      const gate = await PermissionGate.create({ writer });
      const turn = writer.turn();
      let ran = 0;
      const runs = Array.from({ length: 50 }, (_, i) =>
        turn.toolCall({ toolName: 'Bash', args: { command: `rm -rf build-${i}` } }).run(() => void ran++),
      );
      await writer.flush();
      expect(gate.pendingCallIds).toHaveLength(50);

      turn.abort();
      const outcomes = await Promise.allSettled(runs);

      expect(gate.pendingCallIds).toEqual([]);
      expect(ran).toBe(0);
      expect(
        outcomes.every((o) => o.status === 'fulfilled' && o.value.decision.outcome === 'cancelled'),
      ).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      gate.dispose();
    } finally {
      process.off('warning', onWarning);
    }
  });
});
