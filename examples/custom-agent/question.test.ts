import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageOfType, SessionMessageType } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { permissions, runAgent } from './agent.js';

/** The custom agent asks a question before a risky step (`clean <dir>`), answered as today's app does. */
let account: RelayAccount;
let session: Session;
let app: AppClient;
let key: RecordKey;
let work: { path: string; remove: () => void };

beforeEach(async () => {
  account = await relayWithAccount();
  session = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    permissions,
    shutdownSignals: false,
  });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  key = await app.keyOf(session.id);
  work = tempDir('happy-custom-agent-question-');
  mkdirSync(join(work.path, 'build'));
  writeFileSync(join(work.path, 'build', 'out.js'), '1');
});
afterEach(async () => {
  app.close();
  await session.close();
  await account.relay.close();
  work.remove();
});

function next<T extends SessionMessageType>(type: T): Promise<MessageOfType<T>> {
  return firstValueFrom(session.writer.messages$.pipe(filter((m): m is MessageOfType<T> => m.type === type)));
}

async function say(text: string): Promise<void> {
  await app.send(
    session.id,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    key,
  );
}

describe('custom-agent: a question before a risky step', () => {
  it('"clean build" asks first; "Delete" then goes through the gate and deletes it', async () => {
    const agent = runAgent(session, { cwd: work.path });
    const asked = next('question');
    await say('clean build');
    const question = await asked;
    expect(question.questions[0]).toMatchObject({ question: 'Delete build and everything in it?' });
    await session.writer.flush();
    const requested = next('permission-request');
    expect(
      await app.call(
        session.id,
        'communication',
        {
          id: question.questionId,
          kind: 'form',
          status: 'answered',
          answers: { delete: { options: ['Delete'] } },
        },
        key,
      ),
    ).toMatchObject({ status: 'applied' });
    const request = await requested;
    expect(request.args).toEqual({ command: "rm -rf -- 'build'" });
    const ended = next('turn-end');
    await session.writer.flush();
    await app.call(session.id, 'permission', { id: request.callId, approved: true }, key);
    await ended;
    expect(existsSync(join(work.path, 'build'))).toBe(false);
    await say('stop');
    await agent;
  });

  it('"Keep it" leaves the directory and asks for no command', async () => {
    const agent = runAgent(session, { cwd: work.path });
    const asked = next('question');
    await say('clean build');
    const question = await asked;
    await session.writer.flush();
    const ended = next('turn-end');
    await app.call(
      session.id,
      'communication',
      {
        id: question.questionId,
        kind: 'form',
        status: 'answered',
        answers: { delete: { options: ['Keep it'] } },
      },
      key,
    );
    await ended;
    expect(existsSync(join(work.path, 'build', 'out.js'))).toBe(true);
    await session.writer.flush();
    const messages = await session.reader.messages();
    expect(messages.some((m) => m.type === 'permission-request')).toBe(false);
    expect(messages.some((m) => m.type === 'text' && m.text === 'Left `build` as it is.')).toBe(true);
    await say('stop');
    await agent;
  });
});
