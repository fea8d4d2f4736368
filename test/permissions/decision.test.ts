import { describe, expect, it } from 'vitest';
import { cancelledDecision, decisionFromOption } from '../../packages/sdk/src/gate/decision.js';

describe('decisions', () => {
  it('a user choice carries the option, its kind, the channel and the feedback', () => {
    expect(decisionFromOption({ id: 'deny', label: 'Deny', kind: 'reject-once' }, 'rpc', 'use pnpm')).toEqual(
      {
        outcome: 'deny',
        optionId: 'deny',
        kind: 'reject-once',
        source: 'user',
        via: 'rpc',
        message: 'use pnpm',
      },
    );
    expect(
      decisionFromOption({ id: 'allow-session', label: 'Allow for session', kind: 'allow-always' }, 'stream'),
    ).toEqual({
      outcome: 'allow',
      optionId: 'allow-session',
      kind: 'allow-always',
      source: 'user',
      via: 'stream',
    });
  });

  it('runtime closures are cancelled, never allowed', () => {
    expect(cancelledDecision('cancel', 'Aborted by user')).toEqual({
      outcome: 'cancelled',
      source: 'cancel',
      message: 'Aborted by user',
    });
    expect(cancelledDecision('shutdown', 'agent restarted')).toEqual({
      outcome: 'cancelled',
      source: 'shutdown',
      message: 'agent restarted',
    });
  });
});
