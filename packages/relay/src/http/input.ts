import { safeParse } from 'zod';
import type { core } from 'zod';
import { bodyTooLarge, errorAnswer } from './answers.js';
import type { RelayContextHttp } from './env.js';
import { JsonDepthScan, MAX_JSON_DEPTH } from './jsonDepth.js';

/**
 * The schemas a route checks its input against; each part is optional. Any zod v4 schema: the
 * relay's own (classic zod) and the shared wire shapes of `happy-session/internal` (zod/mini).
 */
export interface InputSchemas {
  readonly params?: core.$ZodType;
  readonly query?: core.$ZodType;
  readonly body?: core.$ZodType;
}

/** The parsed input of a route: one field per schema given. */
export type Input<S extends InputSchemas> = {
  [K in keyof S]: S[K] extends core.$ZodType<infer T> ? T : never;
};

/** Where a value came from, as the real server names it in a validation message. */
type Part = 'params' | 'body' | 'querystring';

const EMPTY_JSON = "Body cannot be empty when content-type is set to 'application/json'";

function validationMessage(
  part: Part,
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
): string {
  return issues.map((issue) => `${part}/${issue.path.map(String).join('/')} ${issue.message}`).join(', ');
}

/**
 * Reads the JSON body, at most `limit` bytes: the declared `Content-Length` is checked before a
 * byte is read, and a chunked body is cut off at the limit. Each chunk's nesting is followed as it
 * arrives, and a body nested deeper than {@link MAX_JSON_DEPTH} is refused (400) at the chunk that
 * passes it, before anything is parsed. `undefined` for a request without a body; a `Response`
 * for every refusal, in the shapes of the real server (fastify's parser).
 */
async function readJson(c: RelayContextHttp, limit: number): Promise<{ value: unknown } | Response> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limit) return bodyTooLarge(c);
  const chunks: Uint8Array[] = [];
  const depth = new JsonDepthScan();
  let size = 0;
  // Read from the socket itself, left open on a refusal so that the 413 can still be answered.
  for await (const chunk of c.env.incoming.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit) return bodyTooLarge(c);
    if (!depth.push(chunk)) return bodyTooDeep(c);
    chunks.push(chunk);
  }
  const type = c.req.header('content-type') ?? '';
  if (size === 0) {
    return type.startsWith('application/json')
      ? errorAnswer(c, 400, 'FastifyError', EMPTY_JSON)
      : { value: undefined };
  }
  if (!type.startsWith('application/json')) {
    return errorAnswer(c, 415, 'FastifyError', `Unsupported Media Type: ${type || 'none'}`);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return errorAnswer(c, 400, 'SyntaxError', (error as Error).message);
  }
}

/** A body nested deeper than {@link MAX_JSON_DEPTH}, refused before it is parsed. */
function bodyTooDeep(c: RelayContextHttp): Response {
  return errorAnswer(c, 400, 'FastifyError', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
}

/**
 * Checks a route's input the way the real server (fastify with zod) does, in its order: params,
 * body, query. A failure is the real server's 400 `{error:'Error', message:'body/messages Too
 * small: …', statusCode:400}` (docs/wire.md §0). The body is read only here, after the
 * authentication middleware, and at most `bodyLimit` bytes of it.
 */
export async function readInput<S extends InputSchemas>(
  c: RelayContextHttp,
  schemas: S,
  bodyLimit = 0,
): Promise<Input<S> | Response> {
  const parsed: Record<string, unknown> = {};
  const check = (
    part: Part,
    key: keyof InputSchemas,
    schema: core.$ZodType,
    value: unknown,
  ): Response | undefined => {
    const result = safeParse(schema, value);
    if (!result.success) return errorAnswer(c, 400, 'Error', validationMessage(part, result.error.issues));
    parsed[key] = result.data;
    return undefined;
  };
  if (schemas.params) {
    const refused = check('params', 'params', schemas.params, c.req.param());
    if (refused) return refused;
  }
  if (schemas.body) {
    const body = await readJson(c, bodyLimit);
    if (body instanceof Response) return body;
    const refused = check('body', 'body', schemas.body, body.value);
    if (refused) return refused;
  }
  if (schemas.query) {
    const refused = check('querystring', 'query', schemas.query, c.req.query());
    if (refused) return refused;
  }
  return parsed as Input<S>;
}
