import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { FoldedCall, MessageOfType, SessionMessageType } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { runAgent, sandboxedPermissions } from './agent.js';

// The example's default: its shell tool runs sandboxed (bubblewrap for real), so a command runs
// without the app answering anything; where the sandbox is unavailable, the command asks.
let account: RelayAccount;
let session: Session;
let app: AppClient;
let key: RecordKey;
let work: { path: string; remove: () => void };
let shell: SandboxedShell;

beforeEach(async () => {
  account = await relayWithAccount();
  work = tempDir('happy-custom-agent-sandbox-');
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  app.close();
  await session.close();
  await shell.close();
  await account.relay.close();
  work.remove();
});

async function open(options: { bwrapPath?: string } = {}): Promise<void> {
  shell = await sandboxedShell({ workspaceRoot: work.path, ...options });
  session = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    permissions: sandboxedPermissions(shell),
  });
  key = await app.keyOf(session.id);
}

function next<T extends SessionMessageType>(type: T): Promise<MessageOfType<T>> {
  return firstValueFrom(session.writer.messages$.pipe(filter((m): m is MessageOfType<T> => m.type === type)));
}

async function send(text: string): Promise<void> {
  await app.send(
    session.id,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    key,
  );
}

describe('custom-agent example, sandboxed', () => {
  it('runs a command in the sandbox without asking, and the sandbox keeps it inside the workspace', async () => {
    await open();
    expect(shell.available).toBe(true);
    const agent = runAgent(session, { cwd: work.path, shell });
    const ended = next('turn-end');
    await send('run echo inside > in.txt && cat in.txt && touch ../outside-of-it');
    const turnId = (await ended).turn;
    const stopped = next('turn-end');
    await send('stop');
    await stopped;
    await agent;
    const messages = await session.reader.messages();
    const call = fold(messages)
      .turn(turnId)!
      .children.find((c): c is FoldedCall => c.kind === 'call')!;
    expect(call.permission).toBeUndefined();
    expect(await readFile(join(work.path, 'in.txt'), 'utf8')).toBe('inside\n');
    expect(call.status).toBe('failed');
    expect(call.end?.error).toContain(
      `The sandbox blocked a write to ${join(work.path, '..', 'outside-of-it')}.`,
    );
  });

  it('without a sandbox the command asks first', async () => {
    await open({ bwrapPath: join(work.path, 'no-bwrap') });
    expect(shell.available).toBe(false);
    const agent = runAgent(session, { cwd: work.path, shell });
    const requested = next('permission-request');
    const ended = next('turn-end');
    await send('run echo asked');
    const request = await requested;
    expect(
      await app.call(
        session.id,
        'permission',
        { id: request.callId, approved: false, decision: 'denied' },
        key,
      ),
    ).toMatchObject({ status: 'applied' });
    await ended;
    const stopped = next('turn-end');
    await send('stop');
    await stopped;
    await agent;
  });
});
