import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { FoldedCall, SessionMessage } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { STEPS, runPipeline } from './pipeline.js';

let account: RelayAccount;
let session: Session;
let work: { path: string; remove: () => void };

beforeEach(async () => {
  account = await relayWithAccount();
  session = await connect({ server: account.relay.url, credentials: account.credentials });
  work = tempDir('happy-pipeline-test-');
});
afterEach(async () => {
  await session.close();
  await account.relay.close();
  work.remove();
});

/** Every tool call of the stream, by title, with its folded state. */
function callsByTitle(messages: readonly SessionMessage[]): Map<string, FoldedCall> {
  const folded = fold(messages);
  const calls = new Map<string, FoldedCall>();
  for (const m of messages) {
    if (m.type === 'tool-call-start') calls.set(m.title, folded.call(m.callId)!);
  }
  return calls;
}

describe('pipeline example', () => {
  it('runs every step three levels deep, streams progress inside the steps and completes the turn', async () => {
    const result = await runPipeline(session, { workDir: work.path });

    expect(result.status).toBe('completed');
    const messages = await session.reader.messages();
    const calls = callsByTitle(messages);
    expect([...calls.keys()]).toEqual(STEPS);
    for (const call of calls.values()) {
      expect(call.status).toBe('done');
      expect(call.end?.error).toBeUndefined();
    }
    const parentOf = (title: string) => calls.get(title)!.start.parentId;
    const idOf = (title: string) => calls.get(title)!.callId;
    expect(parentOf('deploy')).toBeUndefined();
    expect(parentOf('build')).toBe(idOf('deploy'));
    expect(parentOf('compile')).toBe(idOf('build'));
    expect(parentOf('lint')).toBe(idOf('build'));
    expect(parentOf('unit')).toBe(idOf('test'));
    expect(parentOf('integration')).toBe(idOf('test'));
    expect(parentOf('publish')).toBe(idOf('deploy'));

    // Progress text sits inside the step that wrote it.
    const compileText = calls
      .get('compile')!
      .children.flatMap((c) => (c.kind === 'message' && c.message.type === 'text' ? [c.message.text] : []));
    expect(compileText).toEqual([
      `Compiling with Node ${process.version}…`,
      'Wrote `dist/app.mjs`; syntax OK.',
    ]);

    const turn = fold(messages).turn(result.turnId)!;
    expect(turn.status).toBe('completed');
    expect(JSON.parse(await readFile(result.artifact!, 'utf8'))).toMatchObject({ file: 'dist/app.mjs' });
  });

  it('a failing step ends itself with its error, its parents with "step … failed", and the turn failed', async () => {
    const result = await runPipeline(session, { workDir: work.path, failAt: 'integration' });

    expect(result.status).toBe('failed');
    const messages = await session.reader.messages();
    const calls = callsByTitle(messages);
    const thrown = 'integration failed on purpose (failAt)';
    expect(calls.get('integration')!.end?.error).toBe(thrown);
    expect(calls.get('test')!.end?.error).toBe(`step "integration" failed: ${thrown}`);
    expect(calls.get('deploy')!.end?.error).toBe(`step "integration" failed: ${thrown}`);
    for (const title of ['integration', 'test', 'deploy']) expect(calls.get(title)!.status).toBe('failed');
    for (const title of ['build', 'compile', 'lint', 'unit']) expect(calls.get(title)!.status).toBe('done');
    expect(calls.has('publish')).toBe(false);

    const turn = fold(messages).turn(result.turnId)!;
    expect(turn.status).toBe('failed');
    expect(turn.children.at(-1)).toMatchObject({
      kind: 'message',
      message: { type: 'text', text: `Deploy stopped: ${thrown}` },
    });
  });
});
