import * as z from '../zod.js';
import { SessionMessageSchema } from './sessionMessage.js';

/**
 * The JSON Schema of a v2 message, generated from the zod schemas (the only definition of the
 * wire). `schema/session-protocol-v2.schema.json` holds its output; a test fails when they drift.
 * The input side is described, so unknown fields stay allowed, as readers ignore them.
 */
export function sessionMessageJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(SessionMessageSchema, { io: 'input', target: 'draft-2020-12' });
  return {
    ...schema,
    $id: 'urn:happy-session:session-protocol-v2',
    title: 'Happy session protocol v2 message',
  };
}
