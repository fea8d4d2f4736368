import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../../packages/sdk/src/session/connect.js';
import type { Session } from '../../../packages/sdk/src/session/session.js';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { until } from './worlds.js';

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
