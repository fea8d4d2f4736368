import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type {
  FoldedCall,
  FoldedNode,
  MessageOfType,
  SessionMessage,
  SessionMessageType,
} from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { permissions, runAgent } from './agent.js';

let account: RelayAccount;
let session: Session;
let app: AppClient;
let key: RecordKey;
let work: { path: string; remove: () => void };

beforeEach(async () => {
  account = await relayWithAccount();
  session = await connect({ server: account.relay.url, credentials: account.credentials, permissions });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  key = await app.keyOf(session.id);
  work = tempDir('happy-custom-agent-test-');
});
afterEach(async () => {
  app.close();
  await session.close();
  await account.relay.close();
  work.remove();
});

/** The next message of `type` the agent appends (subscribe before causing it). */
function next<T extends SessionMessageType>(type: T): Promise<MessageOfType<T>> {
  return firstValueFrom(session.writer.messages$.pipe(filter((m): m is MessageOfType<T> => m.type === type)));
}

/**
 * Sends a prompt as today's app does (legacy user text), answers the permission request it raises
 * with `answer` (the app's `permission` RPC body) if given, and waits for the agent's turn to end.
 */
async function prompt(
  text: string,
  answer?: Record<string, unknown>,
): Promise<{ turnId: string; rpcResult?: unknown }> {
  const ended = next('turn-end');
  const requested = answer ? next('permission-request') : undefined;
  await app.send(
    session.id,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    key,
  );
  const rpcResult = requested
    ? await app.call(session.id, 'permission', { id: (await requested).callId, ...answer }, key)
    : undefined;
  return { turnId: (await ended).turn, rpcResult };
}

/** Sends `stop`, waits for the loop to end, and reads the stream back. */
async function stopAndRead(agent: Promise<void>): Promise<SessionMessage[]> {
  await prompt('stop');
  await agent;
  return session.reader.messages();
}

/** The turn's tool call, and the texts written inside the call and after it. */
function callIn(messages: SessionMessage[], turnId: string) {
  const turn = fold(messages).turn(turnId)!;
  const call = turn.children.find((c): c is FoldedCall => c.kind === 'call')!;
  const texts = (nodes: FoldedNode[]) =>
    nodes.flatMap((n) => (n.kind === 'message' && n.message.type === 'text' ? [n.message.text] : []));
  return { turn, call, inside: texts(call.children), after: texts(turn.children) };
}

describe('custom-agent example', () => {
  it('runs a command once the user approves it, with the approved args, and writes its output', async () => {
    const agent = runAgent(session, { cwd: work.path });

    const { turnId, rpcResult } = await prompt('run echo approved | tee -a ran.log', { approved: true });
    const messages = await stopAndRead(agent);

    expect(rpcResult).toMatchObject({ status: 'applied' });
    expect(await readFile(join(work.path, 'ran.log'), 'utf8')).toBe('approved\n');
    const { turn, call, inside, after } = callIn(messages, turnId);
    expect(call.start).toMatchObject({
      toolName: 'Bash',
      args: { command: 'echo approved | tee -a ran.log' },
    });
    expect(call.permission?.request.callId).toBe(call.callId);
    expect(call.status).toBe('done');
    expect(inside).toEqual(['```\napproved\n```']);
    expect(after).toEqual(['Run `echo approved | tee -a ran.log`: done.']);
    expect(turn.status).toBe('completed');
  });

  it('runs nothing when the user denies; the call ends with an error and the turn still completes', async () => {
    const agent = runAgent(session, { cwd: work.path });

    const { turnId, rpcResult } = await prompt('run echo denied | tee -a ran.log', {
      approved: false,
      decision: 'denied',
    });
    const messages = await stopAndRead(agent);

    expect(rpcResult).toMatchObject({ status: 'applied' });
    expect(existsSync(join(work.path, 'ran.log'))).toBe(false);
    const { turn, call, inside, after } = callIn(messages, turnId);
    expect(call.status).toBe('denied');
    expect(call.end?.error).toBe('Denied by the user.');
    expect(inside).toEqual([]);
    expect(after).toEqual(['Run `echo denied | tee -a ran.log`: not allowed, so not run.']);
    expect(turn.status).toBe('completed');
  });

  it("the app's stop cancels the command waiting for permission: it never runs and the turn ends cancelled", async () => {
    const agent = runAgent(session, { cwd: work.path });

    const ended = next('turn-end');
    const requested = next('permission-request');
    await app.send(
      session.id,
      {
        role: 'user',
        content: { type: 'text', text: 'run echo stopped | tee -a ran.log' },
        meta: { sentFrom: 'web' },
      },
      key,
    );
    await requested;
    // The app's stop button: the `abort` RPC. The request follows the turn's signal by itself.
    await app.call(session.id, 'abort', { reason: "The user doesn't want to proceed." }, key);
    const turnId = (await ended).turn;
    const messages = await stopAndRead(agent);

    expect(existsSync(join(work.path, 'ran.log'))).toBe(false);
    const { turn, call, after } = callIn(messages, turnId);
    expect(call.status).toBe('cancelled');
    // A stop ends the turn at once: the summary the agent writes afterwards is not appended, and
    // writing it did not throw (docs/architecture.md, "Builders").
    expect(after).toEqual([]);
    expect(messages.filter((m) => m.type === 'turn-end' && m.turn === turnId)).toHaveLength(1);
    expect(turn.status).toBe('cancelled');
  });

  it('a plan card only when the plan changed: a denied step is not completed', async () => {
    const agent = runAgent(session, { cwd: work.path });
    const commands = ['a', 'b', 'c', 'd', 'e'].map((n) => `echo ${n} | tee -a ${n}.log`);
    // The person allows every command but the second one.
    const replies: Promise<unknown>[] = [];
    const subscription = session.writer.messages$.subscribe((m) => {
      if (m.type !== 'permission-request') return;
      const body = String(m.args?.command).startsWith('echo b')
        ? { approved: false, decision: 'denied' }
        : { approved: true };
      replies.push(app.call(session.id, 'permission', { id: m.callId, ...body }, key));
    });
    const { turnId } = await prompt(`run each ${commands.join('; ')}`);
    subscription.unsubscribe();
    await Promise.all(replies);
    const messages = await stopAndRead(agent);

    expect(existsSync(join(work.path, 'b.log'))).toBe(false);
    expect(existsSync(join(work.path, 'e.log'))).toBe(true);
    expect(fold(messages).turn(turnId)!.status).toBe('completed');
    const plans = messages.flatMap((m) => (m.type === 'plan' ? [m.entries] : []));
    // Every card shows a plan other than the card before it; the calls that start together share
    // one card, so five commands make at most one card to start and one per answer.
    plans.slice(1).forEach((entries, i) => expect(entries).not.toEqual(plans[i]));
    expect(plans.length).toBeLessThanOrEqual(1 + commands.length);
    expect(plans[0]!.map((e) => e.status)).toEqual(commands.map(() => 'in_progress'));
    expect(plans.at(-1)).toEqual(
      commands.map((command, i) =>
        i === 1
          ? { content: `Run \`${command}\` (not allowed, not run)`, status: 'pending' }
          : { content: `Run \`${command}\``, status: 'completed' },
      ),
    );
  });

  it("today's app's No (no decision) is an answer: nothing runs, the plan says so, the turn completes", async () => {
    const agent = runAgent(session, { cwd: work.path });
    const { turnId } = await prompt('run echo no | tee -a ran.log', { approved: false });
    const messages = await stopAndRead(agent);

    expect(existsSync(join(work.path, 'ran.log'))).toBe(false);
    const { turn, call, after } = callIn(messages, turnId);
    expect(call.status).toBe('denied');
    expect(after).toEqual(['Run `echo no | tee -a ran.log`: not allowed, so not run.']);
    expect(turn.status).toBe('completed');
    const plans = messages.flatMap((m) => (m.type === 'plan' ? [m.entries] : []));
    expect(plans.at(-1)).toEqual([
      { content: 'Run `echo no | tee -a ran.log` (not allowed, not run)', status: 'pending' },
    ]);
  });

  it('reads a file without asking: the Read allow rule decides', async () => {
    await writeFile(join(work.path, 'notes.txt'), 'buy milk\n');
    const agent = runAgent(session, { cwd: work.path });

    const { turnId } = await prompt('read notes.txt');
    const messages = await stopAndRead(agent);

    const { turn, call, inside } = callIn(messages, turnId);
    expect(call.start).toMatchObject({ toolName: 'Read', args: { file_path: 'notes.txt' } });
    expect(call.permission).toBeUndefined();
    expect(call.status).toBe('done');
    expect(inside).toEqual(['```\nbuy milk\n```']);
    expect(turn.status).toBe('completed');
    expect(messages.some((m) => m.type === 'permission-request')).toBe(false);
  });

  it('answers anything else with text, and "stop" ends the loop', async () => {
    const agent = runAgent(session, { cwd: work.path });

    const { turnId } = await prompt('hello');
    const messages = await stopAndRead(agent);

    const folded = fold(messages);
    expect(folded.turn(turnId)!.children).toEqual([
      {
        kind: 'message',
        message: expect.objectContaining({ type: 'text', text: expect.stringContaining('"hello"') }),
      },
    ]);
    const last = folded.timeline.at(-1);
    expect(last).toMatchObject({
      kind: 'turn',
      status: 'completed',
      children: [{ message: { type: 'text', text: 'Stopping. Bye!' } }],
    });
  });
});
