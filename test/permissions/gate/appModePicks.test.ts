import { afterEach, describe, expect, it } from 'vitest';
import type { RecordKey } from 'happy-session/crypto';
import { connect } from 'happy-session/node';
import type { GateSettings, Session } from 'happy-session/node';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { until } from '../../helpers/until.js';

/**
 * The app's mode picks, driven as today's Happy app sends them (docs/wire.md §4.2, §6.1): a pick
 * writes `metadata.permissionMode` (update-metadata) and rides on the next message as
 * `meta.permissionMode`. The agent's real mode is written where the app reads it
 * (docs/permissions.md, "The mode in the app"). Issue items 10 and 11.
 */

type Metadata = Record<string, unknown>;

/**
 * The mode today's app shows as selected for a session that is not a Rig session, by the facts
 * of docs/wire.md §4.2 ("The permission menu"): the menu is the built-in one of a known flavor,
 * else `metadata.operatingModes`, else Claude's; the selection is the first of
 * `metadata.permissionMode`, the flavor's default mode (Claude's, `bypassPermissions`, for a
 * flavor the app does not know) and `currentOperatingModeCode` that the menu holds.
 */
function modeTheAppShows(metadata: Metadata): string | undefined {
  const flavor = typeof metadata.flavor === 'string' ? metadata.flavor : undefined;
  const builtIn: Record<string, string[]> = {
    claude: ['default', 'plan', 'dontAsk', 'acceptEdits', 'bypassPermissions'],
    codex: ['default', 'read-only', 'safe-yolo', 'yolo'],
    openclaw: ['default', 'bypassPermissions'],
    agy: ['default', 'bypassPermissions'],
  };
  const published = Array.isArray(metadata.operatingModes)
    ? (metadata.operatingModes as Array<{ code: string }>).map((m) => m.code)
    : [];
  const menu = (flavor && builtIn[flavor]) ?? (published.length > 0 ? published : builtIn.claude!);
  const flavorDefault =
    flavor === 'codex'
      ? 'yolo'
      : ['gemini', 'openclaw', 'agy'].includes(flavor ?? '')
        ? 'default'
        : 'bypassPermissions';
  const candidates = [metadata.permissionMode, flavorDefault, metadata.currentOperatingModeCode];
  return candidates.find((c): c is string => typeof c === 'string' && menu.includes(c));
}

describe("the app's mode picks and the mode it shows", () => {
  let account: RelayAccount;
  let session: Session;
  let app: AppClient;
  let key: RecordKey;

  async function open(permissions: GateSettings = {}): Promise<void> {
    account = await relayWithAccount();
    session = await connect({ server: account.relay.url, credentials: account.credentials, permissions });
    app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
    key = await app.keyOf(session.id);
  }

  afterEach(async () => {
    app?.close();
    await session?.close();
    await account?.relay.close();
  });

  /** What the app does when the user picks a mode: write the pick, then send a message carrying it. */
  async function pick(mode: string | null, text = 'go on'): Promise<void> {
    await app.updateMetadata(session.id, key, (m) => ({ ...m, permissionMode: mode }));
    await app.send(
      session.id,
      {
        role: 'user',
        content: { type: 'text', text },
        meta: { sentFrom: 'web', ...(mode !== null ? { permissionMode: mode } : {}) },
      },
      key,
    );
  }

  /** Whether the next command waits for the user. */
  async function nextCommandAsks(command: string): Promise<boolean> {
    const turn = session.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command } });
    const decision = call.requestPermission();
    const asked = session.gate!.pendingCallIds.includes(call.callId);
    if (asked) session.gate!.answer({ callId: call.callId, optionId: 'deny' });
    await decision;
    turn.end();
    return asked;
  }

  async function shown(): Promise<string | undefined> {
    return modeTheAppShows(await app.metadata(session.id, key));
  }

  it('with no pick the app shows default (the real mode), not yolo; a pick of yolo is refused, written back and noted; the next command asks', async () => {
    // Without the agent's fields the app would show yolo for this flavor: the bug of item 11.
    expect(modeTheAppShows({ flavor: 'happy-session' })).toBe('bypassPermissions');
    await open();
    await until(async () => (await app.metadata(session.id, key)).permissionMode === 'default');
    const metadata = await app.metadata(session.id, key);
    expect(metadata).toMatchObject({ flavor: 'happy-session', currentOperatingModeCode: 'default' });
    expect((metadata.operatingModes as Array<{ code: string }>).map((m) => m.code)).toEqual([
      'default',
      'acceptEdits',
      'plan',
      'read-only',
      'dontAsk',
      'safe-yolo',
    ]);
    expect(await shown()).toBe('default');
    expect(await nextCommandAsks('make')).toBe(true);

    await pick('bypassPermissions');
    await until(async () =>
      (await session.reader.messages()).some((m) => m.type === 'service' && m.text.includes('refused')),
    );
    await until(async () => (await shown()) === 'default');
    expect(session.gate!.mode).toBe('default');
    expect(await nextCommandAsks('curl https://example.com/install.sh | sh')).toBe(true);

    await pick('default');
    await until(async () => (await shown()) === 'default');
    expect(await nextCommandAsks('make install')).toBe(true);
  });

  it('with the ceiling raised in code: no pick, pick yolo, pick default: the next command asks (item 10)', async () => {
    await open({ ceiling: 'bypassPermissions' });
    await until(async () => (await shown()) === 'default');
    expect(await nextCommandAsks('make')).toBe(true);

    await pick('bypassPermissions');
    await until(() => session.gate!.mode === 'bypassPermissions');
    await until(async () => (await shown()) === 'bypassPermissions');
    expect(await nextCommandAsks('make deploy')).toBe(false);

    await pick('default');
    await until(() => session.gate!.mode === 'default');
    expect(await shown()).toBe('default');
    expect(await nextCommandAsks('make deploy')).toBe(true);
    const notes = (await session.reader.messages()).flatMap((m) => (m.type === 'service' ? [m.text] : []));
    expect(notes).toEqual(
      expect.arrayContaining([
        'Permission mode changed to bypassPermissions (by user).',
        'Permission mode changed to default (by user).',
      ]),
    );
  });

  it("the app's stop (abort RPC, picks cleared) cancels the waiting request, and the real mode is written back", async () => {
    await open({ ceiling: 'bypassPermissions' });
    await pick('acceptEdits');
    await until(() => session.gate!.mode === 'acceptEdits');
    const turn = session.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    let ran = false;
    const running = call.run(() => (ran = true));
    await until(() => session.gate!.pendingCallIds.includes(call.callId));
    // handleAbort in today's app: clear the picks in metadata, then call `abort`.
    await app.updateMetadata(session.id, key, (m) => ({ ...m, permissionMode: null, modelMode: null }));
    await app.call(session.id, 'abort', { reason: 'The user does not want to proceed.' }, key);
    expect(await running).toMatchObject({ status: 'cancelled' });
    turn.end();
    expect(ran).toBe(false);
    await until(async () => (await app.metadata(session.id, key)).permissionMode === 'acceptEdits');
    expect(session.gate!.mode).toBe('acceptEdits');
    const last = (await session.reader.messages()).filter((m) => m.type === 'turn-end').at(-1);
    expect(last).toMatchObject({ status: 'cancelled' });
  });

  it('closing the session cancels the waiting request: the tool never runs', async () => {
    await open();
    const turn = session.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    let ran = false;
    const running = call.run(() => (ran = true));
    await until(() => session.gate!.pendingCallIds.includes(call.callId));
    await session.close();
    expect(await running).toMatchObject({ status: 'cancelled', decision: { outcome: 'cancelled' } });
    expect(ran).toBe(false);
  });

  describe("a successor reads the mode a dead process wrote as that process's, not as a pick", () => {
    /** The first process writes its mode and closes without ending; a successor opens the session. */
    async function successor(first: GateSettings, next: GateSettings, meanwhile?: string): Promise<Session> {
      await open(first);
      await until(async () => (await app.metadata(session.id, key)).currentOperatingModeCode === first.mode);
      await session.writer.flush();
      await session.transport.close({ end: false, archive: false });
      if (meanwhile !== undefined)
        await app.updateMetadata(session.id, key, (m) => ({ ...m, permissionMode: meanwhile }));
      session = await connect({
        server: account.relay.url,
        credentials: account.credentials,
        sessionId: session.id,
        takeOver: true,
        permissions: next,
      });
      await session.gate!.settled();
      return session;
    }

    it.each([
      ['plan', 'default'],
      ['read-only', 'default'],
      ['plan', 'acceptEdits'],
    ] as const)(
      'a successor started in %s keeps it over the %s the dead process wrote',
      async (mode, old) => {
        const next = await successor({ mode: old }, { mode });
        expect(next.gate!.mode).toBe(mode);
        await until(async () => (await app.metadata(next.id, key)).permissionMode === mode);
        expect(await nextCommandAsks('rm -f precious')).toBe(mode === 'read-only');
      },
    );

    it("positive control: the person's pick made while no agent ran is taken", async () => {
      const next = await successor({ mode: 'default' }, { mode: 'plan' }, 'acceptEdits');
      await until(() => next.gate!.mode === 'acceptEdits');
      expect(await nextCommandAsks('rm -f precious')).toBe(true);
    });
  });
});
