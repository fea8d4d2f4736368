import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SessionMessage } from 'happy-session';
import { connect } from 'happy-session/node';
import type { ConnectOptions, Session } from 'happy-session/node';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { ffmpeg, ffmpegColour, gradient } from '../../media/fixtures.js';
import {
  writeSimpleToolCall,
  writeSubagent,
  writeToolCallWithPermission,
} from '../../helpers/exampleStreams.js';
import { READING_ORDERS, appReads } from '../../helpers/happyAppModel.js';
import type { AppAgentState, AppRecord, AppScreen, AppTool } from '../../helpers/happyAppModel.js';

// What today's Happy app shows of sessions written with format 'v1', by the test-side model of the
// app (test/helpers/happyAppModel.ts, from docs/wire.md §6.6), in its three reading orders. Each
// scenario is written once through connect() on the embedded relay and read back as the app reads
// it: raw HTTP, the app's own key derivation, agentState from the session row.

let account: RelayAccount;
let app: AppClient;
let dir: string;

/** A scenario as written: its v2 messages, and the session (kept open to download attachments). */
interface Written {
  readonly session: Session;
  readonly messages: SessionMessage[];
}

const written = new Map<string, Written>();
const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

async function write(
  name: string,
  body: (session: Session) => Promise<void>,
  options: Partial<ConnectOptions> = {},
): Promise<void> {
  const session = await connect({
    format: 'v1',
    server: account.relay.url,
    credentials: account.credentials,
    archiveOnClose: false,
    ...options,
  });
  const messages: SessionMessage[] = [];
  session.writer.messages$.subscribe((m) => messages.push(m));
  await body(session);
  await session.writer.flush();
  await session.gate?.settled();
  written.set(name, { session, messages });
}

/** The session's records and agentState, as the app reads them. */
async function appData(sessionId: string): Promise<{ records: AppRecord[]; agentState: AppAgentState }> {
  const key = await app.keyOf(sessionId);
  const { messages } = await account.http.request<{
    messages: { seq: number; createdAt: number; content: { c: string } }[];
  }>('GET', `/v3/sessions/${sessionId}/messages?after_seq=0&limit=500`);
  const records = await Promise.all(
    messages.map(async (m) => ({
      record: await app.decrypt(m.content.c, key),
      seq: m.seq,
      createdAt: m.createdAt,
    })),
  );
  const row = await app.session(sessionId);
  const agentState = ((await app.decrypt(row.agentState, key)) ?? {}) as AppAgentState;
  return { records, agentState };
}

/** Every call of the v2 stream, with the error its end carried. */
function callsOf(messages: readonly SessionMessage[]): { callId: string; error: string | undefined }[] {
  const ends = new Map<string, string | undefined>();
  for (const m of messages) if (m.type === 'tool-call-end') ends.set(m.callId, m.error);
  return messages.flatMap((m) =>
    m.type === 'tool-call-start' ? [{ callId: m.callId, error: ends.get(m.callId) }] : [],
  );
}

/**
 * What every v1 session must look like in the app: no record dropped, each call shown exactly once
 * with the label given (by call title), and its result on the call: the error as the output of an
 * error (or denied) call, an empty result otherwise.
 */
function expectCallsShown(
  screen: AppScreen,
  messages: readonly SessionMessage[],
  labels: Record<string, string>,
  denied: readonly string[] = [],
): void {
  expect(screen.dropped).toBe(0);
  const titles = new Map<string, string>();
  for (const m of messages) if (m.type === 'tool-call-start') titles.set(m.callId, m.title);
  const shownIds = screen.tools.filter((t) => t.name !== 'file').map((t) => t.id);
  const calls = callsOf(messages);
  expect([...shownIds].sort()).toEqual(calls.map((c) => c.callId).sort());
  for (const { callId, error } of calls) {
    const tool = screen.tools.find((t) => t.id === callId)!;
    const title = titles.get(callId)!;
    expect(tool.label, `label of "${title}"`).toBe(labels[title]);
    if (denied.includes(title)) {
      expect(tool.state, `state of "${title}"`).toBe('denied');
    } else if (error !== undefined) {
      expect(tool.state, `state of "${title}"`).toBe('error');
      expect(tool.result).toEqual({ output: error, isError: true });
    } else {
      expect(tool.state, `state of "${title}"`).toBe('completed');
      expect(tool.result).toEqual({ output: null, isError: false });
    }
  }
}

/** Reads a scenario in every order and hands each screen to `check`. */
async function inEveryOrder(
  name: string,
  check: (screen: AppScreen, messages: SessionMessage[]) => void | Promise<void>,
) {
  const { session, messages } = written.get(name)!;
  const { records, agentState } = await appData(session.id);
  for (const order of READING_ORDERS) {
    const screen = appReads(records, agentState, order);
    try {
      await check(screen, messages);
    } catch (error) {
      throw new Error(`in ${order} order: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}

function agentTexts(screen: AppScreen): string[] {
  return screen.rows.flatMap((r) => (r.kind === 'agent-text' ? [r.text] : []));
}

beforeAll(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  dir = await mkdtemp(join(tmpdir(), 'happy-app-rendering-'));

  await write('simple', (s) => writeSimpleToolCall(s.writer));
  await write('permission', (s) => writeToolCallWithPermission(s.writer));
  await write('subagent', async (s) => void (await writeSubagent(s.writer)));

  await write('pipeline', async (s) => {
    const turn = s.turn();
    await turn
      .step('deploy', (deploy) =>
        deploy.step('build', async (build) => {
          await build.step('lint', () => undefined);
          await build.step('compile', () => {
            throw new Error('tsc exited with code 2');
          });
        }),
      )
      .catch(() => undefined);
    turn.end('failed');
  });

  await write('nested subagent', async (s) => {
    const turn = s.turn();
    const review = turn.toolCall({
      toolName: 'Task',
      title: 'Review the auth module',
      agentTitle: 'Auth review',
    });
    const sub = review.scope();
    sub.text('Reading the handlers.');
    sub.toolCall({ toolName: 'Read', title: 'Read src/auth.ts', args: { file_path: 'src/auth.ts' } }).end();
    const deeper = sub.toolCall({ toolName: 'Task', title: 'Check the tokens', agentTitle: 'Token check' });
    deeper
      .scope()
      .toolCall({ toolName: 'grep', title: 'Find expiry', args: { pattern: 'expiresAt' } })
      .end({ error: 'no match' });
    deeper.end();
    review.end();
    turn.end();
  });

  await write('denied', async (s) => {
    const turn = s.turn();
    const rm = turn.toolCall({
      toolName: 'Bash',
      title: 'Delete the build',
      args: { command: 'rm -rf dist' },
    });
    const running = rm.run(() => 'removed');
    await s.gate!.settled();
    await app.call(s.id, 'permission', { id: rm.callId, approved: false, decision: 'denied' }, s.key);
    await running;
    turn.end();
  });

  await write(
    'denied by policy',
    async (s) => {
      const turn = s.turn();
      await turn
        .toolCall({ toolName: 'Bash', title: 'Wipe the disk', args: { command: 'rm -rf /' } })
        .run(() => 'wiped');
      turn.end();
    },
    { permissions: { rules: { deny: ['Bash(rm:*)'] } } },
  );

  const png = await gradient(64, 48, { r: 255, g: 0, b: 0 }, { r: 0, g: 0, b: 255 }).png().toBuffer();
  await writeFile(join(dir, 'chart.png'), png);
  await ffmpeg(
    [
      '-f',
      'lavfi',
      '-i',
      `color=c=${ffmpegColour({ r: 0x33, g: 0x66, b: 0xcc })}:s=320x240:r=25:d=3`,
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
    ],
    join(dir, 'clip.mp4'),
  );
  await writeFile(join(dir, 'report.pdf'), PDF);
  await write('media', async (s) => {
    const turn = s.turn();
    await turn.attach(join(dir, 'chart.png'));
    await turn.attach(png);
    await turn.attach(join(dir, 'clip.mp4'));
    await turn.attach(join(dir, 'report.pdf'));
    turn.end();
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([...written.values()].map((w) => w.session.close()));
  app.close();
  await account.relay.close();
  await rm(dir, { recursive: true, force: true });
});

describe("today's Happy app reading v1 sessions, in live, catch-up and reload order", () => {
  test('simple tool call: the call is labelled with its title and completed; the texts show', async () => {
    await inEveryOrder('simple', (screen, messages) => {
      expectCallsShown(screen, messages, { 'Searching for TODO': 'Searching for TODO' });
      expect(agentTexts(screen)).toEqual(['Searching...', 'Found 3 TODOs.']);
      expect(screen.rows[0]).toEqual({ kind: 'user-text', text: 'Find TODOs' });
    });
  });

  test('tool call with permission: the allowed call shows once, completed', async () => {
    await inEveryOrder('permission', (screen, messages) => {
      expectCallsShown(screen, messages, { 'Run `rm -rf node_modules`': 'Bash: Run `rm -rf node_modules`' });
    });
  });

  test("subagent: the subagent's calls carry its title, its texts show, nothing is shown twice", async () => {
    await inEveryOrder('subagent', (screen, messages) => {
      expectCallsShown(screen, messages, {
        'Exploring codebase': 'Task: Exploring codebase',
        'Searching for login': 'Auth research › Searching for login',
      });
      expect(agentTexts(screen)).toEqual(['Looking at src/auth/...', 'Found auth handler.']);
    });
  });

  test('a three-level pipeline with a failing step: each step labelled with its path, each error on its step', async () => {
    await inEveryOrder('pipeline', (screen, messages) => {
      expectCallsShown(screen, messages, {
        deploy: 'Step: deploy',
        build: 'Step: deploy › build',
        lint: 'Step: deploy › build › lint',
        compile: 'Step: deploy › build › compile',
      });
      const compile = screen.tools.find((t) => t.label.endsWith('compile'))!;
      expect(compile.result).toEqual({ output: 'tsc exited with code 2', isError: true });
      const deploy = screen.tools.find((t) => t.label === 'Step: deploy')!;
      expect(deploy.result).toEqual({
        output: 'step "compile" failed: tsc exited with code 2',
        isError: true,
      });
    });
  });

  test("a subagent inside a subagent: every call carries its subagents' titles", async () => {
    await inEveryOrder('nested subagent', (screen, messages) => {
      expectCallsShown(screen, messages, {
        'Review the auth module': 'Task: Review the auth module',
        'Read src/auth.ts': 'Auth review › Read src/auth.ts',
        'Check the tokens': 'Task: Auth review › Check the tokens',
        'Find expiry': 'Auth review › Token check › Find expiry',
      });
      expect(agentTexts(screen)).toEqual(['Reading the handlers.']);
    });
  });

  test('a denied call shows as denied, from the mirror in agentState', async () => {
    await inEveryOrder('denied', (screen, messages) => {
      expectCallsShown(screen, messages, { 'Delete the build': 'Delete the build' }, ['Delete the build']);
    });
  });

  test('a call the policy denies at once shows as denied too', async () => {
    await inEveryOrder('denied by policy', (screen, messages) => {
      expectCallsShown(screen, messages, { 'Wipe the disk': 'Wipe the disk' }, ['Wipe the disk']);
    });
  });

  test('a photo is captioned with its file name, a video is its poster named with its duration, a PDF is a text line', async () => {
    const { session } = written.get('media')!;
    await inEveryOrder('media', async (screen) => {
      expect(screen.dropped).toBe(0);
      const images = screen.tools.filter(
        (t): t is AppTool & { image: NonNullable<AppTool['image']> } => t.image !== undefined,
      );
      expect(images.map((t) => t.image.caption)).toEqual(['chart.png', 'photo-1.png', '▶ clip.mp4 · 0:03']);
      expect(images.map((t) => t.state)).toEqual(['completed', 'completed', 'completed']);
      // No image box over bytes that are not an image: each one's bytes decode as a picture.
      for (const { image } of images) {
        const bytes = await session.fetchMedia({
          id: 'x',
          time: 0,
          role: 'agent',
          type: 'photo',
          turn: 't',
          ref: image.ref,
          thumbhash: '',
          width: 1,
          height: 1,
        });
        const meta = await sharp(bytes).metadata();
        expect(['png', 'jpeg', 'gif', 'webp']).toContain(meta.format);
      }
      expect(images[2]!.image).toMatchObject({ width: 280, height: 210 });
      expect(agentTexts(screen)).toEqual(['📎 report.pdf · application/pdf · 77 B']);
    });
  });
});

describe('pending permission requests', () => {
  test('a call waiting for an answer shows as pending until it is answered', async () => {
    await write('pending', async (s) => {
      const turn = s.turn();
      const call = turn.toolCall({ toolName: 'Bash', title: 'Push to main', args: { command: 'git push' } });
      void call.run(() => 'pushed');
      await s.gate!.settled();
    });
    await inEveryOrder('pending', (screen) => {
      expect(screen.tools.map((t) => [t.label, t.state])).toEqual([['Push to main', 'pending']]);
    });
  });
});
