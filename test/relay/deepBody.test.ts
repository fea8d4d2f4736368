import { afterEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { MAX_JSON_DEPTH } from '../../packages/relay/src/http/jsonDepth.js';
import { createSession, http, signIn, type HttpAnswer } from './helpers.js';

/**
 * Issue 35, item 6: a JSON body's nesting is followed while it is read, and a body nested deeper
 * than MAX_JSON_DEPTH is answered 400 before it is parsed (docs/relay.md, "Limits"), so that no
 * body holds the relay while other accounts wait. Nothing here is timed: the refusal is shown by
 * its message, which only the depth check gives, and the other account's request by its answer.
 */

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const DEPTH_REFUSAL = {
  status: 400,
  body: {
    error: 'FastifyError',
    message: `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`,
    statusCode: 400,
  },
};

async function postRaw(relay: Relay, token: string, path: string, body: string): Promise<HttpAnswer> {
  const response = await fetch(`${relay.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown, headers: response.headers };
}

/** A messages batch whose first record's content is replaced by `inner`, as raw JSON text. */
function batch(inner: string): string {
  return `{"messages":[{"localId":"x","content":${inner}}]}`;
}

const TEN_MILLION = 10_000_000;

const HOSTILE: Array<[string, () => string]> = [
  ['20 MB of arrays nested 10,000,000 deep', () => '['.repeat(TEN_MILLION) + ']'.repeat(TEN_MILLION)],
  ['objects nested 100,000 deep', () => '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)],
  [
    'the batch itself, with content nested one level past the limit',
    () => batch('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)),
  ],
  [
    'deep nesting after a string full of brackets and escaped quotes',
    () => batch(`["${'[\\"{'.repeat(1_000)}",${'['.repeat(200)}${']'.repeat(200)}]`),
  ],
  ['unbalanced: closing brackets first, then deeper opening ones', () => ']'.repeat(100) + '['.repeat(300)],
];

describe('a body nested too deep is refused while it is read, by its depth', () => {
  it.each(HOSTILE)('%s: 400 from the depth check', async (_name, make) => {
    relay = await startRelay();
    const { token } = await signIn(relay);
    const sessionId = (await createSession(relay, token)).id as string;
    expect(await postRaw(relay, token, `/v3/sessions/${sessionId}/messages`, make())).toMatchObject(
      DEPTH_REFUSAL,
    );
  });

  it('another account is answered while the 20 MB deep body is refused, and the relay takes the next batch', async () => {
    relay = await startRelay();
    const hostile = await signIn(relay);
    const other = await signIn(relay);
    const sessionId = (await createSession(relay, hostile.token)).id as string;
    const otherSession = (await createSession(relay, other.token)).id as string;
    const deep = '['.repeat(TEN_MILLION) + ']'.repeat(TEN_MILLION);
    const [refused, listed, written] = await Promise.all([
      postRaw(relay, hostile.token, `/v3/sessions/${sessionId}/messages`, deep),
      http(relay, other.token).get('/v1/sessions'),
      http(relay, other.token).post(`/v3/sessions/${otherSession}/messages`, {
        messages: [{ content: 'QUFBQQ==', localId: 'other' }],
      }),
    ]);
    expect(refused).toMatchObject(DEPTH_REFUSAL);
    expect(listed.status).toBe(200);
    expect(listed.body.sessions.map((s: { id: string }) => s.id)).toEqual([otherSession]);
    expect(written.status).toBe(200);
    const after = await http(relay, hostile.token).post(`/v3/sessions/${sessionId}/messages`, {
      messages: [{ content: 'QkJCQg==', localId: 'after' }],
    });
    expect(after.status).toBe(200);
  });
});

describe('positive controls: bodies within the depth are parsed and checked as before', () => {
  it.each([
    ['a plain batch', batch('"QUFBQQ=="')],
    ['a batch whose content string holds 10,000 brackets', batch(`"${'[{'.repeat(5_000)}"`)],
    ['a batch whose content string holds escaped quotes and backslashes', batch(`"\\"[[\\\\\\"[["`)],
  ])('%s: stored (200)', async (_name, body) => {
    relay = await startRelay();
    const { token } = await signIn(relay);
    const sessionId = (await createSession(relay, token)).id as string;
    expect((await postRaw(relay, token, `/v3/sessions/${sessionId}/messages`, body)).status).toBe(200);
  });

  it('a body nested exactly MAX_JSON_DEPTH deep reaches the schema check, which answers for its shape', async () => {
    relay = await startRelay();
    const { token } = await signIn(relay);
    const sessionId = (await createSession(relay, token)).id as string;
    // The batch and its record take 3 levels; the content 61 more.
    const inner = '['.repeat(MAX_JSON_DEPTH - 3) + ']'.repeat(MAX_JSON_DEPTH - 3);
    const answer = await postRaw(relay, token, `/v3/sessions/${sessionId}/messages`, batch(inner));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('Error');
    expect(answer.body.message).toMatch(/^body\/messages\/0\/content /);
  });
});
