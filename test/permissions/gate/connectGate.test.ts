import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { until } from '../../helpers/until.js';

describe('connect() installs a permission gate', () => {
  let account: RelayAccount;
  let session: Session | undefined;
  let app: AppClient | undefined;
  afterEach(async () => {
    app?.close();
    await session?.close();
    await account.relay.close();
  });

  it("a gated call waits for the app's legacy permission RPC, and the app's mode pick reaches the gate", async () => {
    account = await relayWithAccount();
    session = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      permissions: { rules: { allow: ['Read'] } },
    });
    app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
    const key = await app.keyOf(session.id);
    const turn = session.turn();
    expect(
      await turn.toolCall({ toolName: 'Read', args: { file_path: 'a' } }).requestPermission(),
    ).toMatchObject({ source: 'rule' });

    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    const running = call.run(() => 'built');
    await until(() => session!.gate!.pendingCallIds.includes(call.callId));
    await session.writer.flush();
    expect(await app.call(session.id, 'permission', { id: call.callId, approved: true }, key)).toMatchObject({
      status: 'applied',
    });
    expect(await running).toMatchObject({ status: 'done', value: 'built' });

    await app.send(
      session.id,
      {
        role: 'user',
        content: { type: 'text', text: 'go' },
        meta: { sentFrom: 'web', permissionMode: 'acceptEdits' },
      },
      key,
    );
    await until(() => session!.gate!.mode === 'acceptEdits');
    turn.end();
  });
});

describe("connect() keeps the gate's record key on the machine", () => {
  it('a grant survives a restart of the agent, and another machine (another key) trusts none of its records', async () => {
    const account = await relayWithAccount();
    const homes = [
      mkdtempSync(join(tmpdir(), 'happy-gate-a-')),
      mkdtempSync(join(tmpdir(), 'happy-gate-b-')),
    ];
    const app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
    try {
      const first = await connect({
        server: account.relay.url,
        credentials: account.credentials,
        homeDir: homes[0],
        archiveOnClose: false,
      });
      const key = await app.keyOf(first.id);
      const turn = first.turn();
      const call = turn.toolCall({ toolName: 'Bash', args: { command: 'npm test' } });
      const decision = call.requestPermission();
      await until(() => first.gate!.pendingCallIds.includes(call.callId));
      await first.writer.flush();
      await app.call(first.id, 'permission', { callId: call.callId, optionId: 'allow-session' }, key);
      expect(await decision).toMatchObject({ outcome: 'allow', kind: 'allow-always' });
      call.end();
      turn.end();
      await first.close({ archive: false });
      const keyFile = join(homes[0]!, 'gate-record.key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);

      for (const [home, rules] of [
        [homes[0]!, ['allow:Bash(npm test)']],
        [homes[1]!, []],
      ] as const) {
        const again = await connect({
          server: account.relay.url,
          credentials: account.credentials,
          homeDir: home,
          sessionId: first.id,
          archiveOnClose: false,
        });
        expect(again.gate!.listRules().map((r) => r.id)).toEqual(rules);
        await again.close({ archive: false });
      }
    } finally {
      app.close();
      await account.relay.close();
      for (const home of homes) rmSync(home, { recursive: true, force: true });
    }
  });
});
