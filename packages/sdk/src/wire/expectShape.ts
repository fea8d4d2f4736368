import type { z } from 'zod';
import { SdkError } from '../errors.js';

/**
 * Checks a 2xx answer against its expected shape.
 *
 * @throws {SdkError} `transport.bad_response` when the server answered something else.
 */
export function expectShape<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new SdkError('transport.bad_response', `The server's answer to ${what} has an unexpected shape.`, {
    hint: 'check that HAPPY_SERVER_URL points at a Happy-compatible server',
    details: { issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`) },
  });
}
