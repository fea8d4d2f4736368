import { describe, expect, it } from 'vitest';
import { PermissionBroker } from '../../packages/sdk/src/gate/broker.js';

describe('PermissionBroker', () => {
  it('remembers a bounded number of settled requests, forgetting the oldest first', () => {
    const broker = new PermissionBroker(3);
    for (const callId of ['a', 'b', 'c', 'd']) {
      broker.remember(callId, {
        toolName: 'Bash',
        args: {},
        options: [],
        decision: { outcome: 'deny', source: 'rule' },
        recordId: undefined,
      });
    }
    expect(broker.lookup('a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((id) => broker.lookup(id))).toEqual([
      expect.objectContaining({ callId: 'b' }),
      expect.objectContaining({ callId: 'c' }),
      expect.objectContaining({ callId: 'd' }),
    ]);
  });
});
