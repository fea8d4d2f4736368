import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/mini';
import { sessionMessageJsonSchema } from 'happy-session/protocol';
import { SessionMessageSchema } from 'happy-session';

const file = new URL('../../packages/sdk/schema/session-protocol-v2.schema.json', import.meta.url);

/** What the generator would write for the current zod schemas. */
function generated(): string {
  return JSON.stringify(sessionMessageJsonSchema(), null, 2) + '\n';
}

describe('schema/session-protocol-v2.schema.json', () => {
  it('is exactly what the zod schemas generate (run `npm run schema` after changing a schema)', () => {
    expect(readFileSync(file, 'utf8')).toBe(generated());
  });

  it('would differ if a schema changed without regenerating', () => {
    const changed = z.discriminatedUnion('type', [
      ...SessionMessageSchema.def.options,
      z.object({ type: z.literal('extra'), role: z.literal('agent') }),
    ]);
    const changedJson = JSON.stringify(z.toJSONSchema(changed, { io: 'input', target: 'draft-2020-12' }));
    const currentJson = JSON.stringify(
      z.toJSONSchema(SessionMessageSchema, { io: 'input', target: 'draft-2020-12' }),
    );
    expect(changedJson).not.toBe(currentJson);
  });

  it("lists the draft's 11 message types and this SDK's extensions", () => {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { oneOf: unknown[] };
    const types = new Set(
      JSON.stringify(schema)
        .match(/"type":\{"type":"string","const":"([a-z-]+)"\}/g)
        ?.map((m) => /const":"([a-z-]+)"/.exec(m)![1]),
    );
    expect([...types].sort()).toEqual(
      [
        'file',
        'permission-request',
        'permission-response',
        'photo',
        'plan',
        'service',
        'text',
        'tool-call-end',
        'tool-call-start',
        'turn-end',
        'turn-start',
        'video',
        // Extensions (docs/questions.md, docs/recovery.md).
        'question',
        'question-end',
        'question-answer',
        'prompt-taken',
      ].sort(),
    );
  });
});
