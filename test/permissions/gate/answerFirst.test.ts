import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateDataKey } from 'happy-session/crypto';
import { PermissionGate } from 'happy-session/permissions';
import { MemoryTransport, SdkError, SessionReader, SessionWriter } from 'happy-session';
import type { RpcHandler, RpcRegistry } from 'happy-session/ports';
import type { SessionMessage } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { FaultProxy } from '../../helpers/faultProxy.js';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount, storedOnRelay } from '../../transport/helpers.js';
import { recordingLogger } from '../../helpers/recordingLogger.js';
import type { RelayAccount } from '../../transport/helpers.js';

/** What the stream holds, one word per message: its type, and `via` for a recorded answer. */
function shape(messages: readonly SessionMessage[]): string[] {
  return messages.map((m) => (m.type === 'permission-response' ? `${m.type} via ${m.via}` : m.type));
}

/**
 * A registry that sends its answers later than its handlers return, as one with an asynchronous
 * cipher (the browser's WebCrypto) does: the test decides when the answer counts as sent and the
 * follow-ups run.
 */
class LateRegistry implements RpcRegistry {
  private readonly handlers = new Map<string, RpcHandler>();

  register(method: string, handler: RpcHandler): () => void {
    this.handlers.set(method, handler);
    return () => this.handlers.delete(method);
  }

  /** Calls `method`; returns its result and the follow-ups it asked for, not yet run. */
  call(method: string, params: unknown): { result: unknown; sent: () => void } {
    const tasks: Array<() => void> = [];
    const result = this.handlers.get(method)?.(params, { method, afterAnswer: (task) => tasks.push(task) });
    return { result, sent: () => tasks.splice(0).forEach((task) => task()) };
  }
}

describe('the permission RPC is answered once the decision is taken, ahead of the mirror', () => {
  let account: RelayAccount | undefined;
  let proxy: FaultProxy | undefined;
  let session: Session | undefined;
  let app: AppClient | undefined;
  afterEach(async () => {
    app?.close();
    await session?.close({ archive: false });
    await proxy?.close();
    await account?.relay.close();
    account = proxy = session = app = undefined;
  });

  it('while the server holds the agentState write, the app has its answer and the tool runs after its record', async () => {
    account = await relayWithAccount();
    proxy = await new FaultProxy(account.relay.url).start();
    // The agent talks to the relay through the proxy; the app directly.
    session = await connect({ server: proxy.url, credentials: account.credentials, archiveOnClose: false });
    app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
    const key = await app.keyOf(session.id);
    const gate = session.gate!;
    const appended: string[] = [];
    session.writer.messages$.subscribe((m) => appended.push(...shape([m])));
    const agentState = async (): Promise<Record<string, Record<string, unknown>>> =>
      ((await app!.decrypt((await app!.session(session!.id)).agentState, key)) ?? {}) as Record<
        string,
        Record<string, unknown>
      >;

    const turn = session.turn();
    const call = turn.toolCall({ toolName: 'Bash', title: 'Run make', args: { command: 'make' } });
    let appendedBeforeStart: string[] | undefined;
    const run = call.run(() => {
      appendedBeforeStart = [...appended];
      call.scope().text('built');
      return 'built';
    });
    await session.writer.flush();
    await gate.settled();
    // agentState keys the request by its record's id, naming the call in toolUseId.
    const requestId = (await session.reader.messages()).find((m) => m.type === 'permission-request')!.id;
    expect(Object.keys((await agentState()).requests ?? {})).toEqual([requestId]);
    expect((await agentState()).requests?.[requestId]).toMatchObject({ toolUseId: call.callId });

    // From the agent's next agentState write on, nothing it sends on its socket reaches the server.
    const release = proxy.holdClientFrames((frame) => frame.includes('"update-state"'));
    const answer = await app.call(
      session.id,
      'permission',
      { callId: call.callId, optionId: 'allow-once' },
      key,
    );

    expect(answer).toMatchObject({ status: 'applied', decision: { outcome: 'allow', via: 'rpc' } });
    expect(await run).toMatchObject({ status: 'done', value: 'built' });
    expect(appendedBeforeStart?.slice(-2)).toEqual(['permission-request', 'permission-response via rpc']);
    // The server has not read the mirror's write yet: the app still sees the request pending.
    expect(Object.keys((await agentState()).requests ?? {})).toEqual([requestId]);

    release();
    await session.writer.flush();
    await gate.settled();
    const state = await agentState();
    expect(state.requests).toEqual({});
    expect(state.completedRequests?.[requestId]).toMatchObject({
      status: 'approved',
      decision: 'approved',
    });
    expect(shape(await storedOnRelay(account, session.id, session.key)).slice(-5)).toEqual([
      'tool-call-start',
      'permission-request',
      'permission-response via rpc',
      'text',
      'tool-call-end',
    ]);
    turn.end();
  });
});

describe('between the answer and its sending', () => {
  it('the decision is taken and recorded: another answer gets already_resolved, the tool starts with its record appended, and the adapters hear of it once the answer is sent', async () => {
    const transport = new MemoryTransport();
    const key = { variant: 'dataKey', key: generateDataKey() } as const;
    const writer = new SessionWriter({ transport, key });
    const rpc = new LateRegistry();
    const gate = await PermissionGate.create({ writer, rpc });
    const appended: string[] = [];
    writer.messages$.subscribe((m) => appended.push(...shape([m])));
    const events: string[] = [];
    gate.events$().subscribe((e) => events.push(e.kind));
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    let appendedAtStart: string[] | undefined;
    const run = call.run(() => (appendedAtStart = [...appended]));
    await writer.flush();

    const { result, sent } = rpc.call('permission', { callId: call.callId, optionId: 'allow-once' });
    // Taken and recorded before the handler returns, its answer not sent yet.
    expect(appended.slice(-1)).toEqual(['permission-response via rpc']);
    expect(gate.answer({ callId: call.callId, optionId: 'reject-once' })).toMatchObject({
      status: 'already_resolved',
      decision: { outcome: 'allow', via: 'rpc' },
    });
    expect(gate.pendingCallIds).toEqual([]);
    expect(await result).toMatchObject({ status: 'applied', decision: { outcome: 'allow', via: 'rpc' } });
    expect(await run).toMatchObject({ status: 'done', decision: { outcome: 'allow' } });
    // The tool started without waiting for the answer to be sent, after its record.
    expect(appendedAtStart?.slice(-2)).toEqual(['permission-request', 'permission-response via rpc']);
    expect(events).toEqual(['requested']);

    sent();
    expect(events).toEqual(['requested', 'settled']);
    turn.end();
    await writer.flush();
    const stream = await new SessionReader({ transport, key }).messages();
    expect(shape(stream)).toEqual([
      'turn-start',
      'tool-call-start',
      'permission-request',
      'permission-response via rpc',
      'tool-call-end',
      'turn-end',
    ]);
    gate.dispose();
  });

  it('when the record cannot be appended, the call is cancelled: the tool never runs, and the RPC says so', async () => {
    const transport = new MemoryTransport();
    const key = { variant: 'dataKey', key: generateDataKey() } as const;
    const writer = new SessionWriter({ transport, key });
    const rpc = new LateRegistry();
    const { logger, lines } = recordingLogger();
    const gate = await PermissionGate.create({ writer, rpc, logger });
    const call = writer.turn().toolCall({ toolName: 'Bash', args: { command: 'make' } });
    let started = false;
    const run = call.run(() => (started = true));
    await writer.flush();
    // The writer refuses the gate's record of the answer (as a closed writer does).
    const append = writer.appendMessage.bind(writer);
    vi.spyOn(writer, 'appendMessage').mockImplementation((draft, options) => {
      if (draft.type === 'permission-response') throw new SdkError('stream.closed', 'The writer is closed.');
      return append(draft, options);
    });

    const { result, sent } = rpc.call('permission', { callId: call.callId, optionId: 'allow-once' });
    expect(await result).toMatchObject({
      status: 'error',
      code: 'permissions.invalid_payload',
      message: 'The decision could not be recorded in the stream.',
    });
    sent();
    const closed = writer.close();

    expect(await run).toMatchObject({
      status: 'cancelled',
      decision: { outcome: 'cancelled', message: 'The decision could not be recorded in the stream.' },
    });
    expect(started).toBe(false);
    expect(gate.answer({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
      status: 'already_resolved',
      decision: { outcome: 'cancelled' },
    });
    await closed;
    const stream = await new SessionReader({ transport, key }).messages();
    expect(shape(stream).filter((t) => t.startsWith('permission'))).toEqual(['permission-request']);
    // The one line of a swallowed write (safely()), with the refusal's code.
    expect(lines).toContainEqual(['debug', 'answer record skipped', { code: 'stream.closed' }]);
    expect(lines.filter(([level]) => level === 'error')).toEqual([]);
  });

  it('a fault of the writer that is no SdkError still fails closed, and is logged as an error', async () => {
    const transport = new MemoryTransport();
    const key = { variant: 'dataKey', key: generateDataKey() } as const;
    const writer = new SessionWriter({ transport, key });
    const rpc = new LateRegistry();
    const { logger, lines } = recordingLogger();
    const gate = await PermissionGate.create({ writer, rpc, logger });
    const call = writer.turn().toolCall({ toolName: 'Bash', args: { command: 'make' } });
    let started = false;
    const run = call.run(() => (started = true));
    await writer.flush();
    const append = writer.appendMessage.bind(writer);
    vi.spyOn(writer, 'appendMessage').mockImplementation((draft, options) => {
      if (draft.type === 'permission-response') throw new TypeError('a bug in the writer');
      return append(draft, options);
    });

    const { result, sent } = rpc.call('permission', { callId: call.callId, optionId: 'allow-once' });
    expect(await result).toMatchObject({
      status: 'error',
      code: 'permissions.invalid_payload',
      message: 'The decision could not be recorded in the stream.',
    });
    sent();
    expect(await run).toMatchObject({ status: 'cancelled', decision: { outcome: 'cancelled' } });
    expect(started).toBe(false);
    expect(lines).toContainEqual([
      'error',
      'permission decision could not be recorded',
      { error: 'TypeError: a bug in the writer' },
    ]);
    expect(lines.filter(([, message]) => message === 'answer record skipped')).toEqual([]);
    await writer.close();
    gate.dispose();
  });
});
