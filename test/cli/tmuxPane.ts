import { execFileSync } from 'node:child_process';
import { MAIN, ROOT, TSX } from './helpers.js';

/** Quotes `s` for the shell tmux runs a command line in. */
export const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * One CLI command in a real terminal: a tmux server of the test's own gives it a pty (raw mode, a
 * size, escape sequences); the test types with `keys` and reads the screen with `screen`. The pane
 * prints `exit=<status>` when the command ends and stays open. Needs the tmux package.
 */
export class TmuxPane {
  private readonly server: string;

  constructor(private readonly name: string) {
    this.server = `happy-session-${name}-${process.pid}`;
  }

  /** Runs `happy-session <args…>` (from the sources) with `HAPPY_HOME_DIR=home` in a `width`×`height` pane. */
  start(home: string, args: readonly string[], size: { width: number; height: number }): void {
    const command = [
      `cd ${quote(ROOT)} &&`,
      `HAPPY_HOME_DIR=${quote(home)}`,
      quote(TSX),
      quote(MAIN),
      ...args,
      '; echo "exit=$?"; sleep 600',
    ].join(' ');
    this.tmux(
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(size.width),
      '-y',
      String(size.height),
      command,
    );
  }

  /** The visible screen of the pane. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.name);
  }

  /** Types `keys` into the pane. */
  keys(keys: string): void {
    this.tmux('send-keys', '-t', this.name, keys);
  }

  /** Waits until the screen shows `text` (reading it every 100 ms, up to `tries` times) and returns it. */
  async shows(text: string, tries = 300): Promise<string> {
    let last = '';
    for (let i = 0; i < tries; i += 1) {
      last = this.screen();
      if (last.includes(text)) return last;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the screen never showed "${text}"; it shows:\n${last}`);
  }

  /** Stops the tmux server and everything in it. */
  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // no server left: nothing to clean
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.server, ...args], { encoding: 'utf8' });
  }
}
