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

/** Formats a byte count as B, KiB or MiB. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
