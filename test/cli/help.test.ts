import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

describe('happy-session --help', () => {
  it('lists every command', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['serve', 'demo', 'sessions', 'watch', 'login']) {
      expect(run.out).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'));
    }
  });

  it.each([
    ['serve', ['--port <port>', '--host <address>', '--data <dir>', '--json']],
    ['demo', ['--json', '--interactive']],
    ['sessions', ['--server <url>', '--json']],
    ['watch', ['<sessionId>', '--server <url>', '--json', '--once']],
    ['login', ['--server <url>', '--force']],
  ])('%s --help prints its usage and options and exits 0', async (command, options) => {
    const run = await cli([command, '--help']);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`Usage: happy-session ${command} [options]`);
    for (const option of options) expect(run.out).toContain(option);
    expect(run.err).toBe('');
  });
});

describe('usage errors exit with 2', () => {
  it('an unknown option', async () => {
    const run = await cli(['sessions', '--colour']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("unknown option '--colour'");
    expect(run.err).toContain('--help');
  });

  it('a missing argument', async () => {
    const run = await cli(['watch']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("missing required argument 'sessionId'");
  });

  it('a port that is not a port', async () => {
    const run = await cli(['serve', '--port', '70000']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('a port is a whole number from 0 to 65535');
  });

  it('an unknown command', async () => {
    const run = await cli(['serv']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("unknown command 'serv'");
  });

  it('no command at all', async () => {
    const run = await cli([]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('Usage: happy-session');
  });
});
