import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'happy-session/node';
import { tempDir } from '../transport/helpers.js';
import { MAIN, ROOT, TSX, cli, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

let env: RelayHome;
beforeAll(async () => {
  env = await relayHome();
  // Enough sessions that `sessions` writes many lines.
  for (let i = 0; i < 12; i += 1) {
    const session = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: `Session ${i}`,
    });
    await session.close({ archive: false });
  }
});
afterAll(async () => {
  await env.close();
});

/** Runs `happy-session <args> | <reader>` in bash; resolves with the CLI's exit status and stderr. */
function piped(args: string[], reader: string): Promise<{ status: number; err: string; out: string }> {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `${[TSX, MAIN, ...args].map(quote).join(' ')} 2>"$ERR" | ${reader}; echo "status=\${PIPESTATUS[0]}"`;
  const errDir = tempDir('happy-epipe-');
  const errFile = `${errDir.path}/err`;
  const child = spawn('bash', ['-c', script], {
    cwd: ROOT,
    env: { ...process.env, HAPPY_HOME_DIR: env.home, ERR: errFile },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => {
    child.once('exit', () => {
      const status = Number(/status=(\d+)/.exec(out)?.[1] ?? -1);
      let err = '';
      try {
        err = readFileSync(errFile, 'utf8');
      } catch {
        // no stderr file: nothing written
      }
      errDir.remove();
      resolve({ status, err, out });
    });
  });
}

describe('a closed pipe', () => {
  it('`sessions | head -3` ends quietly with status 0', async () => {
    const run = await piped(['sessions', '--server', env.relay.url], 'head -3');
    expect(run.out.split('\n').slice(0, 3).join('\n')).toMatch(/^ID\s+ACTIVE\s+UPDATED\s+TITLE\n\w+\s+no/);
    expect(run.status).toBe(0);
    expect(run.err).toBe('');
  });

  it('a reader that is gone before the first line: still status 0 and no stack trace, with --json too', async () => {
    for (const args of [
      ['sessions', '--server', env.relay.url],
      ['sessions', '--server', env.relay.url, '--json'],
    ]) {
      const run = await piped(args, 'true');
      expect(run.status).toBe(0);
      expect(run.err).toBe('');
    }
  });
});

describe('--json errors', () => {
  it('a failure is one JSON line on stderr with code, message and hint', async () => {
    const empty = tempDir();
    try {
      const run = await cli(['sessions', '--json', '--server', env.relay.url], {
        env: { HAPPY_HOME_DIR: empty.path },
      });
      expect(run.code).toBe(1);
      expect(run.out).toBe('');
      const error = JSON.parse(run.err) as { code: string; message: string; hint: string };
      expect(error).toEqual({
        code: 'credentials.missing',
        message: `No Happy credentials in ${empty.path} (agent.key or access.key).`,
        hint: expect.stringContaining('run `happy-session keygen`'),
      });
    } finally {
      empty.remove();
    }
  });

  it('a usage error is JSON too, code cli.usage, exit 2', async () => {
    const run = await cli(['send', '--json', 'only-a-session']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.err)).toEqual({
      code: 'cli.usage',
      message: "missing required argument 'text'",
      hint: 'run with --help for usage',
    });
  });

  it('without --json, errors stay text', async () => {
    const run = await cli(['send', 'only-a-session']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("error: missing required argument 'text'");
  });
});
