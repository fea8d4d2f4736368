/** The app's RPC as the adapters' tests call it: a method of the session and its parameters. */
export type AppRpc = (method: 'permission' | 'abort', params: Record<string, unknown>) => Promise<unknown>;

/** One way the person can end what a waiting call asked, and how the turn must end after it. */
export interface TurnEnding {
  readonly name: string;
  readonly end: (callId: string) => Promise<unknown>;
  readonly status: 'completed' | 'cancelled';
}

/**
 * Every way a turn can end while a call waits for approval, as the app sends it (issue 39, items 3
 * and 4): a denial is an answer and the turn goes on; only the card's stop and the stop button end
 * it cancelled. Each adapter's test runs a second prompt after each of these; `rpc` is read when
 * an ending runs, so it may name a relay made per test.
 */
export function turnEndings(rpc: AppRpc): readonly TurnEnding[] {
  return [
    {
      name: "the app's No (legacy body, no decision)",
      end: (id) => rpc('permission', { id, approved: false }),
      status: 'completed',
    },
    {
      name: 'a deny with a reason',
      end: (id) => rpc('permission', { id, approved: false, decision: 'denied', reason: 'not now' }),
      status: 'completed',
    },
    {
      name: 'a v2 deny',
      end: (id) => rpc('permission', { callId: id, optionId: 'deny' }),
      status: 'completed',
    },
    {
      name: "the card's stop (decision abort)",
      end: (id) => rpc('permission', { id, approved: false, decision: 'abort' }),
      status: 'cancelled',
    },
    {
      name: "the app's stop button",
      end: () => rpc('abort', { reason: "The user doesn't want to proceed." }),
      status: 'cancelled',
    },
  ];
}
