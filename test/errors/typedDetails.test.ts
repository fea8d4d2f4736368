import { describe, expect, expectTypeOf, it } from 'vitest';
import { isSdkError, SdkError } from 'happy-session';
import { prepareMedia } from 'happy-session/media';
import { memorySession } from '../helpers/memorySession.js';

/**
 * `e.details` is typed per code once `isSdkError(e, code)` narrowed it (issue 39, item 6), and
 * what the SDK's throw sites put there is what the type says.
 */
async function caught(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('typed details', () => {
  it('media.too_large: details.maxBytes and details.size are numbers, from a real refusal', async () => {
    const error = await caught(() => prepareMedia(Buffer.alloc(4096, 1), { maxBytes: 1024 }));
    if (!isSdkError(error, 'media.too_large')) throw error;
    expectTypeOf(error.details).toEqualTypeOf<
      | {
          readonly size?: number;
          readonly maxBytes?: number;
          readonly width?: number;
          readonly height?: number;
          readonly maxPixels?: number;
          readonly tried?: readonly {
            readonly width: number;
            readonly height: number;
            readonly bytes: number;
          }[];
        }
      | undefined
    >();
    const maxBytes: number | undefined = error.details?.maxBytes;
    expect(maxBytes).toBe(1024);
    expect(error.details?.size).toBe(4096);
  });

  it('stream.too_large: size, limit, the message id and type', async () => {
    const { writer } = memorySession();
    const turn = writer.turn();
    const error = await caught(() => turn.text('x'.repeat(2 * 1024 * 1024)));
    if (!isSdkError(error, 'stream.too_large')) throw error;
    const { size, limit, messageId, type } = error.details!;
    expectTypeOf(size).toEqualTypeOf<number>();
    expectTypeOf(messageId).toEqualTypeOf<string>();
    expect(size).toBeGreaterThan(limit);
    expect(type).toBe('text');
    expect(typeof messageId).toBe('string');
  });

  it('the session codes and the HTTP ones are typed; any other code keeps a record of unknowns', () => {
    const error: unknown = new SdkError('session.channel_not_in_format', 'v1', {
      details: { sessionId: 's', format: 'v1', channel: 'stream' },
    });
    if (isSdkError(error, 'session.channel_not_in_format')) {
      expectTypeOf(error.details!.format).toEqualTypeOf<'v1' | 'v2'>();
      expect(error.details?.channel).toBe('stream');
    }
    if (isSdkError(error, 'transport.rate_limited'))
      expectTypeOf(error.details!.retryAfterMs).toEqualTypeOf<number | undefined>();
    if (isSdkError(error, 'session.option_not_offered'))
      expectTypeOf(error.details!.options[0]!.id).toEqualTypeOf<string>();
    if (isSdkError(error, 'media.corrupt_image'))
      expectTypeOf(error.details).toEqualTypeOf<Readonly<Record<string, unknown>> | undefined>();
    if (isSdkError(error))
      expectTypeOf(error.details).toEqualTypeOf<Readonly<Record<string, unknown>> | undefined>();
  });
});
