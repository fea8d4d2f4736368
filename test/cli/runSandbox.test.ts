import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { runCli } from '../../packages/cli/src/program.js';
import { runCommand } from '../../packages/cli/src/commands/run.js';
import { fold, silentLogger } from 'happy-session';
import type { FoldedNode } from 'happy-session';
import { relayHome, ScriptedTerminal } from './helpers.js';
import type { RelayHome } from './helpers.js';
import { callsOf, runInProcess, storedMessages, textsOf } from './runHelpers.js';

// `run --sandbox` runs its command in the sandbox (bubblewrap for real): writes only inside the
// working directory (here the repository the tests run from), no network.
let env: RelayHome;
let outside: string;
beforeEach(async () => {
  env = await relayHome();
  outside = mkdtempSync(join(tmpdir(), 'happy-run-sandbox-outside-'));
});
afterEach(async () => {
  await env.close();
  rmSync(outside, { recursive: true, force: true });
});

const runEnv = (): Record<string, string> => ({ HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url });

describe('happy-session run --sandbox', () => {
  it('runs the command confined: its output and status come through, a write outside is blocked and said', async () => {
    const target = join(outside, 'x');
    const result = await runInProcess(
      ['--sandbox', '--', 'sh', '-c', `echo "it's inside"; touch '${target}'; exit 4`],
      runEnv(),
    );
    expect(result.code).toBe(4);
    expect(result.out).toBe("it's inside\n");
    expect(existsSync(target)).toBe(false);
    expect(result.lines).toContain(`happy-session run: the sandbox blocked a write of ${target}`);
    const messages = await storedMessages(env.relay.url, env.credentials, result.sessionId);
    const [step] = callsOf((fold(messages).timeline[0] as { children: FoldedNode[] }).children);
    expect(textsOf(step!)).toContain(`[sandbox] blocked a write of ${target}`);
  });

  it('hides a file in the home from the command; --allow-read gives it back (positive control)', async () => {
    // A directory of the host's own home, named by no table: hidden because it is in a home.
    const dir = mkdtempSync(join(homedir(), '.happy-run-allow-read-'));
    try {
      writeFileSync(join(dir, 'note.txt'), 'from the home\n');
      const line = `cat '${join(dir, 'note.txt')}' || echo unreadable`;
      const hidden = await runInProcess(['--sandbox', '--', 'sh', '-c', line], runEnv());
      expect(hidden.out).toContain('unreadable');
      expect(hidden.out).not.toContain('from the home');
      const allowed = await runInProcess(
        ['--sandbox', '--allow-read', dir, '--', 'sh', '-c', line],
        runEnv(),
      );
      expect(allowed.out).toBe('from the home\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hides the configured Happy home's key and the host's tokens from the command (positive control: the command runs)", async () => {
    const key = readFileSync(join(env.home, 'agent.key'), 'utf8');
    const result = await runInProcess(
      [
        '--sandbox',
        '--',
        'sh',
        '-c',
        `echo ran; cat "$HAPPY_HOME_DIR/agent.key"; cat '${join(env.home, 'agent.key')}'; echo "token=$GITHUB_TOKEN"; env`,
      ],
      { ...runEnv(), GITHUB_TOKEN: 'token-of-the-host' },
    );
    expect(result.out).toMatch(/^ran\n/);
    expect(result.out).toContain('token=\n');
    expect(result.out).not.toContain('token-of-the-host');
    expect(result.out).not.toContain(env.home);
    for (const line of key.split('\n').filter((l) => l.length > 8)) expect(result.out).not.toContain(line);
    expect(key.length).toBeGreaterThan(20);
  });

  it("hides the Happy home the run's context names when the environment names none (issue 35, class 4)", async () => {
    // A host that embeds run with its own resolved home (RunContext.homeDir), outside every home
    // directory and named by no variable: its key must still be hidden.
    const key = readFileSync(join(env.home, 'agent.key'), 'utf8');
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await runCommand(
      ['sh', '-c', `echo ran; cat '${join(env.home, 'agent.key')}' || echo unreadable`],
      { sandbox: true, quiet: true },
      {
        stdout,
        stderr: new PassThrough(),
        printError: () => undefined,
        logger: silentLogger,
        env: { HAPPY_SERVER_URL: env.relay.url },
        homeDir: env.home,
      },
    );
    expect(code).toBe(0);
    expect(out).toMatch(/^ran\n/);
    expect(out).toContain('unreadable');
    for (const line of key.split('\n').filter((l) => l.length > 8)) expect(out).not.toContain(line);
  });

  it('exits 1 without running the command where the sandbox cannot run', async () => {
    const target = join(outside, 'ran');
    const lines: string[] = [];
    // No bwrap on the command's PATH: the sandbox cannot start it.
    const noBwrap: Record<string, string> = { ...runEnv(), PATH: '/nonexistent' };
    const code = await runCli(['run', '--sandbox', '--', 'touch', target], {
      print: () => undefined,
      printError: (line) => lines.push(line),
      terminal: () => new ScriptedTerminal(),
      interrupts: () => new AbortController().signal,
      env: noBwrap,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    expect(code).toBe(1);
    expect(existsSync(target)).toBe(false);
    expect(lines).toEqual([
      expect.stringMatching(
        /^happy-session run: The sandbox cannot start a command here: .*the command was not run$/,
      ),
    ]);
  });
});
