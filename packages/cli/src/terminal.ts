/**
 * The terminal a live command draws on and reads keys from. `processTerminal()` is the real one;
 * tests can pass their own.
 */
export interface Terminal {
  /** Writes text as it is (escape sequences included). */
  write(text: string): void;
  /** True when output goes to a terminal (then the screen is redrawn in place). */
  readonly isTTY: boolean;
  readonly rows: number | undefined;
  readonly columns: number | undefined;
  /** Calls `listener` with each chunk of typed keys (raw mode: no Enter needed); returns a stop function. */
  onKeys(listener: (keys: string) => void): () => void;
  /** Calls `listener` when the terminal is resized; returns a stop function. */
  onResize(listener: () => void): () => void;
}

/** The process's stdin and stdout as a {@link Terminal}; stdin goes to raw mode while keys are read. */
export function processTerminal(): Terminal {
  const { stdin, stdout } = process;
  return {
    write: (text) => {
      stdout.write(text);
    },
    get isTTY() {
      return stdout.isTTY === true;
    },
    get rows() {
      return stdout.isTTY ? stdout.rows : undefined;
    },
    get columns() {
      return stdout.isTTY ? stdout.columns : undefined;
    },
    onKeys(listener) {
      const raw = stdin.isTTY === true;
      if (raw) stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      const onData = (chunk: string): void => listener(chunk);
      stdin.on('data', onData);
      stdin.resume();
      return () => {
        stdin.off('data', onData);
        if (raw) stdin.setRawMode(false);
        stdin.pause();
      };
    },
    onResize(listener) {
      stdout.on('resize', listener);
      return () => stdout.off('resize', listener);
    },
  };
}
