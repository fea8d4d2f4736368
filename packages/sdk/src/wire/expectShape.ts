import * as z from '../zod.js';
import { SdkError } from '../errors.js';

/**
 * Checks a 2xx answer against its expected shape: one of this entry's schemas, or any other zod v4
 * schema (classic or mini).
 *
 * @throws {SdkError} `transport.bad_response` when the server answered something else.
 */
export function expectShape<T>(schema: z.core.$ZodType<T>, value: unknown, what: string): T {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  throw new SdkError('transport.bad_response', `The server's answer to ${what} has an unexpected shape.`, {
    hint: 'check that HAPPY_SERVER_URL points at a Happy-compatible server',
    details: { issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`) },
  });
}
