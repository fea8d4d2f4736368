import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { FoldedNode } from 'happy-session';
import { relayHome } from '../../test/cli/helpers.js';
import type { RelayHome } from '../../test/cli/helpers.js';
import {
  callsOf,
  happySessionBin,
  runInProcess,
  storedMessages,
  textsOf,
} from '../../test/cli/runHelpers.js';
import { tempDir } from '../../test/transport/helpers.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

let env: RelayHome;
let bin: { dir: string; remove: () => void };
let out: { path: string; remove: () => void };

beforeAll(() => {
  bin = happySessionBin();
});
afterAll(() => bin.remove());
beforeEach(async () => {
  env = await relayHome();
  out = tempDir('happy-run-pipeline-');
});
afterEach(async () => {
  await env.close();
  out.remove();
});

/** Runs the pipeline inside one outer `happy-session run` and returns the tree of steps read back. */
async function release(command: string[]) {
  const result = await runInProcess(['--title', 'release', '--', ...command], {
    HAPPY_HOME_DIR: env.home,
    HAPPY_SERVER_URL: env.relay.url,
    PATH: `${bin.dir}:${process.env.PATH ?? ''}`,
    OUT: out.path,
  });
  const [turn] = fold(await storedMessages(env.relay.url, env.credentials, result.sessionId)).timeline;
  const [root] = callsOf((turn as { children: FoldedNode[] }).children);
  return { result, root: root! };
}

describe('run-pipeline example', () => {
  it.each([
    ['the Makefile', ['make', '--no-print-directory', '-C', HERE, 'release']],
    ['the shell script', ['sh', `${HERE}release.sh`]],
  ])(
    '%s shows release > build, test > unit, lint, each step done with its own output',
    async (_name, command) => {
      const { result, root } = await release(command);
      expect(result.code).toBe(0);
      expect(root.start.title).toBe('release');
      expect(root.status).toBe('done');
      const [build, test] = callsOf(root.children);
      expect(callsOf(root.children).map((c) => c.start.title)).toEqual(['build', 'test']);
      expect(callsOf(test!.children).map((c) => [c.start.title, c.status])).toEqual([
        ['unit', 'done'],
        ['lint', 'done'],
      ]);
      expect(textsOf(build!)).toContain(`built ${out.path}/app.js`);
      const [unit] = callsOf(test!.children);
      expect(textsOf(unit!)).toBe('```\nhello\n```');
      // The outer step shows its own line, not its steps' output again.
      expect(textsOf(root)).toContain(`release: ${out.path}/app.js is ready`);
      expect(textsOf(root)).not.toContain('hello');
    },
    240_000,
  );
});
