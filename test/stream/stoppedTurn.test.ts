/**
 * A stop is not a crash (issue 26): once a turn was stopped from outside the program (the writer
 * closing: `session.close()`, SIGINT or SIGTERM through `connect()`), what the program still
 * writes to it is not appended and settles `stream.turn_stopped`, with one logger line. Writing
 * after the program's own `turn.end()` stays a programming error.
 */
import { describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import type { Logger } from 'happy-session';
import { PermissionGate, loadShellParser } from 'happy-session/permissions';
import { memorySession } from '../helpers/memorySession.js';

const shell = await loadShellParser();

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (message: string): void => void lines.push(message);
  return { lines, debug: push, info: push, warn: push, error: push };
}

const stopped = (error: unknown): boolean => isSdkError(error, 'stream.turn_stopped');

describe('writes to a stopped turn', () => {
  it('after close(): text, calls, run, step, attach and ends neither throw nor append; each settles stream.turn_stopped (a step resolves with its value); one logger line', async () => {
    const logger = recordingLogger();
    const { writer, reader } = memorySession({ logger });
    const gate = await PermissionGate.create({ writer, shell });
    const turn = writer.turn();
    const waiting = turn.toolCall({ toolName: 'Bash', args: { command: 'make deploy' } });
    const asked = waiting.run(() => 'ran');
    await writer.flush();

    await writer.close();
    const storedAtClose = await reader.messages();

    await expect(asked).resolves.toMatchObject({ status: 'cancelled' });
    const outcomes = [
      turn.text('after the stop'),
      turn.thinking('still thinking'),
      turn.service('status'),
      waiting.scope().text('inside the cancelled call'),
      waiting.end({ error: 'late' }),
    ];
    const late = turn.toolCall({ toolName: 'Bash', args: { command: 'ls' } });
    outcomes.push(late.started, late.end(), late.scope().text('x'));
    await expect(late.run(() => 'ran')).resolves.toMatchObject({ status: 'cancelled' });
    let stepSignal: AbortSignal | undefined;
    const step = turn.step('Build', (build, call) => {
      stepSignal = call.signal;
      build.text('inside the step');
      return 'built';
    });
    const attach = turn.attach(new Uint8Array([1, 2, 3]));
    turn.end();

    for (const outcome of [
      outcomes[0],
      outcomes[1],
      outcomes[2],
      outcomes[3],
      outcomes[5],
      outcomes[6],
      outcomes[7],
    ])
      await expect(outcome).rejects.toSatisfy(stopped);
    // A step goes on in the stopped turn (its signal aborted) and appends nothing.
    await expect(step).resolves.toBe('built');
    expect(stepSignal?.aborted).toBe(true);
    await expect(attach).rejects.toSatisfy(stopped);
    // The call's one end was written when the stop cancelled it; ending it again returns that.
    await expect(outcomes[4]).resolves.toBeDefined();
    expect(await reader.messages()).toEqual(storedAtClose);
    expect(storedAtClose.map((m) => (m.type === 'tool-call-end' ? `end:${m.error}` : m.type))).toEqual([
      'turn-start',
      'tool-call-start',
      'permission-request',
      'end:cancelled',
      'turn-end',
    ]);
    expect(storedAtClose.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
    expect(logger.lines.filter((l) => l.startsWith('the turn was stopped'))).toHaveLength(1);
    gate.dispose();
  });

  it('after the program’s own end(): writing is a programming error (stream.turn_ended), as before', async () => {
    const { writer } = memorySession();
    const turn = writer.turn();
    turn.end();
    expect(() => turn.text('late')).toThrowError(expect.objectContaining({ code: 'stream.turn_ended' }));
    expect(() => turn.toolCall({ toolName: 'Bash' })).toThrowError(
      expect.objectContaining({ code: 'stream.turn_ended' }),
    );
    await writer.close();
  });

  it('after the app’s stop (turn.abort(), the abort RPC) the turn stays open: what the program writes is appended, and end() says cancelled', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    turn.abort(new Error('aborted by the user'));
    await expect(turn.text('Stopped: the build was not run.')).resolves.toBeDefined();
    turn.end();
    await writer.close();
    expect((await reader.messages()).map((m) => m.type)).toEqual(['turn-start', 'text', 'turn-end']);
    expect((await reader.messages()).at(-1)).toMatchObject({ status: 'cancelled' });
  });
});
