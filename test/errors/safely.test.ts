import { describe, expect, it } from 'vitest';
import { SdkError } from 'happy-session';
import { safely } from '../../packages/sdk/src/errors.js';
import { recordingLogger } from '../helpers/recordingLogger.js';

// The one way a swallowed failure is logged (packages/sdk/src/errors.ts): `<what> skipped` with
// the SdkError's code; anything that is not an SdkError is no failure to swallow.
describe('safely()', () => {
  it('positive control: returns what the write returned and logs nothing', () => {
    const { logger, lines } = recordingLogger();
    expect(safely(logger, 'gate write', () => 42)).toBe(42);
    expect(lines).toEqual([]);
  });

  it('swallows an SdkError: logged at debug as "<what> skipped" with its code, and undefined returned', () => {
    const { logger, lines } = recordingLogger();
    const result = safely(logger, 'gate write', () => {
      throw new SdkError('stream.closed', 'The writer is closed; nothing more can be appended.');
    });
    expect(result).toBeUndefined();
    expect(lines).toEqual([['debug', 'gate write skipped', { code: 'stream.closed' }]]);
  });

  it('logs the same line at warn when the caller says the loss deserves a warning', () => {
    const { logger, lines } = recordingLogger();
    safely(
      logger,
      'successor write',
      () => {
        throw new SdkError('stream.closed', 'The writer is closed; nothing more can be appended.');
      },
      'warn',
    );
    expect(lines).toEqual([['warn', 'successor write skipped', { code: 'stream.closed' }]]);
  });

  it('passes on an error that is not an SdkError, logging nothing', () => {
    const { logger, lines } = recordingLogger();
    const bug = new TypeError('not a function');
    expect(() =>
      safely(logger, 'gate write', () => {
        throw bug;
      }),
    ).toThrow(bug);
    expect(lines).toEqual([]);
  });
});
