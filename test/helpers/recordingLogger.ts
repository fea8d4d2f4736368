import type { Logger } from 'happy-session';

/** One line a {@link recordingLogger} kept: its level, message and fields. */
export type LoggedLine = readonly [level: keyof Logger, message: string, fields?: Record<string, unknown>];

/** A logger that keeps every line, so a test can assert what the code under test logged. */
export function recordingLogger(): { logger: Logger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const keep =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push(fields === undefined ? [level, message] : [level, message, fields]);
    };
  return {
    logger: { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') },
    lines,
  };
}
