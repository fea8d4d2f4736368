import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from 'happy-session';
import { RunClient } from '../../packages/cli/src/run/runClient.js';
import { RunServer } from '../../packages/cli/src/run/runServer.js';
import type { StepTree } from '../../packages/cli/src/run/stepTree.js';

/**
 * A nested run killed while answers it had not read were waiting (`kill -9` of the nested
 * `happy-session run`) resets its connection: the outer run reads ECONNRESET. That must end the
 * connection as a close does, never throw out of the outer run (docs/cli.md, "Nesting"). The
 * reset is made for real: a child process sends requests from a paused socket, so the answers
 * stay unread in the kernel, and then kills itself with SIGKILL.
 */

const TOKEN = 'run-token';
/** Requests with a wrong token are answered with an error and never reach the step tree. */
const refusedTree = {} as StepTree;

let uncaught: unknown[];
const record = (error: unknown): void => {
  uncaught.push(error);
};
beforeEach(() => {
  uncaught = [];
  process.on('uncaughtException', record);
});
afterEach(() => {
  process.off('uncaughtException', record);
});

/** Runs a node child that sends `count` refused requests to `path`, leaves the answers unread and kills itself. */
function killedClient(path: string, count: number): Promise<NodeJS.Signals | null> {
  const script = `
    const socket = require('node:net').connect(process.argv[1]);
    socket.pause();
    socket.on('connect', () => {
      for (let seq = 1; seq <= ${count}; seq++)
        socket.write(JSON.stringify({ t: 'start', seq, id: 'x', token: 'wrong', title: 't' }) + '\\n');
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 400);
    });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script, path], { stdio: 'ignore' });
    child.once('exit', (_code, signal) => resolve(signal));
  });
}

describe('a nested run killed with answers unread', () => {
  it('resets its connection; the outer run ends it quietly and serves the next nested run', async () => {
    const server = await RunServer.listen(
      refusedTree,
      TOKEN,
      { ask: () => Promise.resolve('deny'), attach: () => Promise.resolve() },
      silentLogger,
    );
    try {
      expect(await killedClient(server.path, 200)).toBe('SIGKILL');
      // The reset reaches the outer run when it next reads; a connection of its own shows it was read.
      const next = await RunClient.open(server.path);
      const ack = await next.request({ t: 'output', id: 'not-mine', text: 'x' });
      next.close();
      expect(ack).toMatchObject({ error: "step not-mine is not one of this run's" });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a nested run whose outer run resets the connection sees its requests rejected, nothing thrown', async () => {
    // The outer run's end is a child that reads nothing and kills itself: what the nested run
    // sent stays unread there, so the nested run reads ECONNRESET.
    const dir = mkdtempSync(join(tmpdir(), 'happy-run-reset-'));
    const path = join(dir, 'outer.sock');
    const script = `
      const server = require('node:net').createServer((socket) => {
        socket.pause();
        setTimeout(() => process.kill(process.pid, 'SIGKILL'), 400);
      });
      server.listen(process.argv[1], () => process.stdout.write('listening\\n'));`;
    const outer = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((resolve) => outer.stdout.once('data', () => resolve()));
      const client = await RunClient.open(path);
      const sent = Array.from({ length: 200 }, () =>
        client.request({ t: 'output', id: 'a', text: 'x'.repeat(1000) }).then(
          () => 'answered',
          (error: Error) => error.message,
        ),
      );
      const outcomes = await Promise.all(sent);
      expect(outcomes.every((o) => o !== 'answered')).toBe(true);
      expect(client.broken).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught).toEqual([]);
    } finally {
      outer.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
