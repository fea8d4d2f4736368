import type { Logger } from 'happy-session';
import type { Print } from './output.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/**
 * A {@link Logger} that prints one line per entry at `minLevel` and above:
 * `level message {"field":…}`. The CLI passes stderr, so logs never mix with data on stdout.
 */
export function printLogger(print: Print, minLevel: Level = 'warn'): Logger {
  const min = LEVELS.indexOf(minLevel);
  const at =
    (level: Level) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (LEVELS.indexOf(level) < min) return;
      print(
        `${level} ${message}${fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : ''}`,
      );
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
