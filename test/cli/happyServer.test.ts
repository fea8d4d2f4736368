import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskResult, ReaderEvent } from 'happy-session';
import { RELAY_INFO_PATH } from 'happy-session/internal';
import { connect, loadCredentials, resolveHappyHome } from 'happy-session/node';
import type { Credentials, Prompt, Session } from 'happy-session/node';
import { FaultProxy } from '../helpers/faultProxy.js';
import { until } from '../helpers/until.js';
import { tempDir } from '../transport/helpers.js';
import { cli, relayHome } from './helpers.js';

/**
 * The user-side commands against a server that answers like a Happy server (issue 39). By default
 * that is the relay behind a proxy that answers the relay's self-description path 404, so
 * `connect()` and the CLI take it for a Happy server and write v1. With `HAPPY_SERVER_URL` set
 * (and credentials in `HAPPY_HOME_DIR`), the same scenarios also run against that server, as the
 * contract suite does (docs/transport.md, "Running the contract suite against any
 * Happy-compatible server"). On each, one agent writes v1 (the default there) and one v2
 * (`format: 'v2'`); every command reads the session's own format and acts in it.
 */
interface Server {
  readonly url: string;
  readonly credentials: Credentials;
  /** The Happy home the CLI reads its key from. */
  readonly home: string;
  /** Sessions left on a shared server are archived; the throwaway relay's need not be. */
  readonly archive: boolean;
  close(): Promise<void>;
}

/** The Happy-like relay: the relay, with its self-description path answered 404. */
async function happyLikeRelay(): Promise<Server> {
  const env = await relayHome();
  const proxy = await new FaultProxy(env.relay.url, (request) =>
    request.url.startsWith(RELAY_INFO_PATH)
      ? { kind: 'answer', status: 404, body: { error: 'Not found' } }
      : { kind: 'forward' },
  ).start();
  return {
    url: proxy.url,
    credentials: env.credentials,
    home: env.home,
    archive: false,
    close: async () => {
      await proxy.close();
      await env.close();
    },
  };
}

const targets: Array<{ readonly name: string; start(): Promise<Server> }> = [
  { name: 'the Happy-like relay', start: happyLikeRelay },
];
const externalUrl = process.env.HAPPY_SERVER_URL;
if (externalUrl) {
  targets.push({
    name: externalUrl,
    start: async () => ({
      url: externalUrl.replace(/\/+$/, ''),
      credentials: loadCredentials(),
      home: resolveHappyHome(),
      archive: true,
      close: async () => {},
    }),
  });
}

/**
 * The formats of the records stored in `session`: a v1 record, or the v1 encoder's legacy record
 * of the agent's (a failed call's result), is v1; prompts (the app's legacy user text, written
 * into sessions of both formats) are left out.
 */
async function formats(session: Session): Promise<string[]> {
  const events: ReaderEvent[] = await session.reader.readAll({ afterSeq: 0 });
  return [
    ...new Set(
      events.flatMap((e) => {
        if (e.kind === 'error') return [];
        if (e.format !== 'legacy') return [e.format];
        return e.kind === 'message' && e.message.role === 'user' ? [] : ['v1'];
      }),
    ),
  ];
}

/** A gated Bash call waiting in `session`: the gate asks, as on any server. */
function gatedCall(session: Session, command: string) {
  const turn = session.turn();
  const call = turn.toolCall({
    toolName: 'Bash',
    title: `Run ${command}`,
    args: { command },
    kind: 'execute',
  });
  const ran: string[] = [];
  const result = call.run(async (args) => {
    ran.push(String(args.command));
    return 'ok';
  });
  return { turn, call, ran, result };
}

interface Waiting {
  readonly kind: 'permission' | 'question';
  readonly id?: string;
  readonly callId?: string;
  readonly questionId?: string;
  readonly title?: string;
}

describe.each(targets)('on $name', ({ start }) => {
  let server: Server;
  let v1: Session;
  let v2: Session;
  let files: ReturnType<typeof tempDir>;

  beforeEach(async () => {
    server = await start();
    files = tempDir('happy-cli-files-');
    const open = (title: string, format?: 'v2') =>
      connect({
        server: server.url,
        credentials: server.credentials,
        title,
        shutdownSignals: false,
        ...(format ? { format } : {}),
      });
    [v1, v2] = await Promise.all([open('Written in v1'), open('Written in v2', 'v2')]);
  });
  afterEach(async () => {
    await Promise.all([v1?.close({ archive: server.archive }), v2?.close({ archive: server.archive })]);
    files?.remove();
    await server?.close();
  });

  const run = (...argv: string[]) =>
    cli([...argv, '--server', server.url], { env: { HAPPY_HOME_DIR: server.home } });

  async function waitingIn(session: Session, count: number): Promise<Waiting[]> {
    return until(
      async () => {
        const listed = await run('answer', session.id, '--json');
        const items = JSON.parse(listed.out) as Waiting[];
        return items.length === count && items;
      },
      { intervalMs: 100, what: `${count} things waiting in ${session.id}` },
    );
  }

  describe('answer on a v1 session (a Happy server)', () => {
    it('lists the waiting request and question, in text and in --json, and answers them as the app does', async () => {
      expect(v1.format).toBe('v1');
      const first = gatedCall(v1, 'make');
      const second = gatedCall(v1, 'rm -rf build');
      const asked: Promise<AskResult> = first.turn.ask([
        { id: 'db', question: 'Which database?', options: ['Postgres', 'SQLite'] },
      ]);
      const waiting = await waitingIn(v1, 3);
      expect(waiting.map((w) => w.kind).sort()).toEqual(['permission', 'permission', 'question']);
      const [make, rm] = [first, second].map((g) =>
        waiting.find((w) => w.kind === 'permission' && w.callId === g.call.callId)!,
      );
      expect(make).toMatchObject({ kind: 'permission', title: 'Run make' });
      // The request's agentState key is its own id, which the app's answer names.
      expect(make!.id).not.toBe(make!.callId);
      const question = waiting.find((w) => w.kind === 'question')!;

      const listed = await run('answer', v1.id);
      expect(listed.out).toContain(`${first.call.callId}  Bash: Run make`);
      expect(listed.out).toContain(`${question.questionId}  Which database?`);
      expect(listed.out).not.toContain('No permission request is waiting');

      // By the agentState id, then by the call id.
      const allowed = await run('answer', v1.id, make!.id!, 'allow');
      expect(allowed).toMatchObject({
        code: 0,
        out: `Allowed once: Run make (call ${first.call.callId}). The agent took it.`,
      });
      expect((await first.result).status).toBe('done');
      expect(first.ran).toEqual(['make']);
      const denied = await run('answer', v1.id, rm!.callId!, 'deny', '--json');
      expect(denied.code).toBe(0);
      expect(JSON.parse(denied.out)).toMatchObject({
        callId: second.call.callId,
        kind: 'reject-once',
        recorded: null,
        rpc: 'applied',
      });
      expect((await second.result).status).toBe('denied');
      expect(second.ran).toEqual([]);

      const answered = await run('answer', v1.id, question.questionId!, 'sqlite');
      expect(answered).toMatchObject({
        code: 0,
        out: `Answered question ${question.questionId} (db: SQLite); the agent took it.`,
      });
      expect(await asked).toMatchObject({ status: 'answered', answers: { db: { options: ['SQLite'] } } });
      expect(await waitingIn(v1, 0)).toEqual([]);
      first.turn.end();
      second.turn.end();
      // Nothing of v2 was written into the v1 session.
      expect(await formats(v1)).toEqual(['v1']);
    });

    it('--via stream is refused with a typed error and a hint, and nothing is stored or answered', async () => {
      const waiting = gatedCall(v1, 'make');
      const [request] = await waitingIn(v1, 1);
      const before = (await v1.reader.readAll({ afterSeq: 0 })).length;
      const refused = await run('answer', v1.id, request!.callId!, 'allow', '--via', 'stream');
      expect(refused.code).toBe(1);
      expect(refused.out).not.toContain('Recorded');
      expect(refused.err).toContain('code: session.channel_not_in_format');
      expect(refused.err).toContain('answer by RPC, as the Happy app does');
      expect((await v1.reader.readAll({ afterSeq: 0 })).length).toBe(before);
      expect(await waitingIn(v1, 1)).toHaveLength(1);
      // The same request, by RPC: it goes through.
      expect((await run('answer', v1.id, request!.callId!, 'allow', '--via', 'rpc')).code).toBe(0);
      expect((await waiting.result).status).toBe('done');
      waiting.turn.end();
    });

    it('a choice the app cannot send (deny-always) is refused with the choices it can', async () => {
      const waiting = gatedCall(v1, 'make');
      const [request] = await waitingIn(v1, 1);
      const refused = await run('answer', v1.id, request!.callId!, 'deny-always');
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('code: session.option_not_offered');
      expect(refused.err).toContain('allow-once, allow-session, deny');
      expect((await run('answer', v1.id, request!.callId!, 'deny')).code).toBe(0);
      expect((await waiting.result).status).toBe('denied');
      waiting.turn.end();
    });
  });

  describe('each command acts in the session’s own format, on one server', () => {
    it.each([
      ['v1', () => v1],
      ['v2', () => v2],
    ] as const)('attach, send, stop and watch on a %s session', async (format, sessionOf) => {
      const session = sessionOf();
      expect(session.format).toBe(format);
      const notes = join(files.path, 'notes.md');
      writeFileSync(notes, '# Notes\n');

      const attached = await run('attach', session.id, notes, '--text', 'Here are the notes.');
      expect(attached.code).toBe(0);

      const prompts = session.prompts();
      expect((await run('send', session.id, 'Read the notes')).code).toBe(0);
      const prompt = (await prompts.next()).value as Prompt;
      expect(prompt.text).toBe('Read the notes');
      await prompts.return(undefined);

      const turn = session.turn();
      expect(await run('stop', session.id)).toMatchObject({ code: 0, out: 'Stopped 1 turn.' });
      expect(turn.signal.aborted).toBe(true);
      await turn.end('cancelled');

      const watched = await run('watch', session.id, '--once');
      expect(watched.code).toBe(0);
      expect(watched.out).toContain('Here are the notes.');
      expect(watched.out).toContain('notes.md');
      expect(watched.out).toContain('Read the notes');

      // Everything the commands wrote is in the session's own format.
      expect(await formats(session)).toEqual([format]);
    });

    it('answer --via stream on a v2 session records the answer, as before', async () => {
      const waiting = gatedCall(v2, 'make');
      const [request] = await waitingIn(v2, 1);
      const answered = await run('answer', v2.id, request!.callId!, 'allow', '--via', 'stream');
      expect(answered.code).toBe(0);
      expect(answered.out).toMatch(/Recorded in the stream \(seq \d+\)/);
      expect((await waiting.result).status).toBe('done');
      waiting.turn.end();
      expect(await formats(v2)).toEqual(['v2']);
      // The gate's sealed note naming the answer's record stays in the stream; watch shows words.
      await until(async () =>
        (await v2.reader.messages()).some(
          (m) => m.type === 'service' && m.text.startsWith('Permission answer applied: '),
        ),
      );
      const watched = await run('watch', v2.id, '--once');
      expect(watched.out).toContain('→ Allow once (allow-once)');
      expect(watched.out).not.toContain('Permission answer applied');
    });
  });
});
