import { isSdkError } from 'happy-session';

/** Where a command prints: one call per line, without the trailing newline. */
export type Print = (line: string) => void;

/**
 * The lines that tell a user what went wrong: the message, then the `SdkError`'s hint and code
 * (the code is what to search the docs for). Other errors show their message only.
 */
export function describeFailure(error: unknown): string[] {
  if (isSdkError(error)) {
    // SdkError folds the hint into `message`; show it on its own line instead.
    const message = error.hint ? error.message.replace(` (${error.hint})`, '') : error.message;
    return [
      `happy-session: ${message}`,
      ...(error.hint ? [`  hint: ${error.hint}`] : []),
      `  code: ${error.code}`,
    ];
  }
  return [`happy-session: ${error instanceof Error ? error.message : String(error)}`];
}

/** A failure as `--json` prints it on stderr: `{code, message, hint?}`, one line. */
export function failureJson(error: unknown): { code: string; message: string; hint?: string } {
  if (isSdkError(error)) {
    const message = error.hint ? error.message.replace(` (${error.hint})`, '') : error.message;
    return { code: error.code, message, ...(error.hint ? { hint: error.hint } : {}) };
  }
  return { code: 'cli.unexpected', message: error instanceof Error ? error.message : String(error) };
}

/** A usage error as `--json` prints it: code `cli.usage`, commander's message. */
export function usageJson(message: string): { code: 'cli.usage'; message: string; hint: string } {
  return { code: 'cli.usage', message, hint: 'run with --help for usage' };
}

/** Formats a byte count as B, KiB or MiB. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
