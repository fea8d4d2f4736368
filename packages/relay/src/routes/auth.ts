import type { FastifyInstance } from 'fastify';
import nacl from 'tweetnacl';
import { AuthChallengeBodySchema as challengeBody } from 'happy-session/wire';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import type { Authenticate } from '../http/authenticate.js';
import type { AuthRequestKind } from '../store/authRequests.js';

const terminalRequestBody = z.object({ publicKey: z.string(), supportsV2: z.boolean().nullish() });
const accountRequestBody = z.object({ publicKey: z.string() });
const statusQuery = z.object({ publicKey: z.string() });
const responseBody = z.object({ response: z.string(), publicKey: z.string() });

/** A pairing public key as hex, or null when it is not a 32-byte X25519 key. */
function boxPublicKeyHex(b64: string): string | null {
  const bytes = Buffer.from(b64, 'base64');
  return bytes.length === nacl.box.publicKeyLength ? bytes.toString('hex') : null;
}

/** True when `signature` is a valid Ed25519 signature of `challenge` by `publicKey` (all b64). */
function verifyChallenge(publicKey: string, challenge: string, signature: string): boolean {
  const key = Buffer.from(publicKey, 'base64');
  const sig = Buffer.from(signature, 'base64');
  // tweetnacl throws on wrong sizes; a malformed key or signature is simply not a valid signature.
  if (key.length !== nacl.sign.publicKeyLength || sig.length !== nacl.sign.signatureLength) return false;
  return nacl.sign.detached.verify(Buffer.from(challenge, 'base64'), sig, key);
}

/**
 * Authentication routes (docs/wire.md §1.2-§1.4): the signed challenge, terminal pairing and
 * account linking.
 */
export function authRoutes(app: FastifyInstance, ctx: RelayContext, authenticate: Authenticate): void {
  app.post<{ Body: z.infer<typeof challengeBody> }>(
    '/v1/auth',
    { schema: { body: challengeBody } },
    async (request, reply) => {
      const { publicKey, challenge, signature } = request.body;
      if (!verifyChallenge(publicKey, challenge, signature)) {
        return reply.code(401).send({ error: 'Invalid signature' });
      }
      const userId = ctx.accounts.upsertByPublicKey(Buffer.from(publicKey, 'base64').toString('hex'));
      return reply.send({ success: true, token: ctx.tokens.issue({ user: userId }) });
    },
  );

  const pollRequest = (kind: AuthRequestKind, publicKey: string, supportsV2: boolean) => {
    const keyHex = boxPublicKeyHex(publicKey);
    if (keyHex === null) return { status: 401, body: { error: 'Invalid public key' } };
    const request = ctx.authRequests.upsert(kind, keyHex, supportsV2);
    if (request.response !== null && request.responseAccountId !== null) {
      const token = ctx.tokens.issue(
        kind === 'terminal'
          ? { user: request.responseAccountId, extras: { session: request.id } }
          : { user: request.responseAccountId },
      );
      return { status: 200, body: { state: 'authorized', token, response: request.response } };
    }
    return { status: 200, body: { state: 'requested' } };
  };

  const answerRequest = (kind: AuthRequestKind, publicKey: string, response: string, userId: string) => {
    const keyHex = boxPublicKeyHex(publicKey);
    if (keyHex === null) return { status: 401, body: { error: 'Invalid public key' } };
    const request = ctx.authRequests.find(kind, keyHex);
    if (!request) return { status: 404, body: { error: 'Request not found' } };
    if (request.response === null) ctx.authRequests.answer(kind, request.id, response, userId);
    return { status: 200, body: { success: true } };
  };

  app.post<{ Body: z.infer<typeof terminalRequestBody> }>(
    '/v1/auth/request',
    { schema: { body: terminalRequestBody } },
    async (request, reply) => {
      const answer = pollRequest('terminal', request.body.publicKey, request.body.supportsV2 ?? false);
      return reply.code(answer.status).send(answer.body);
    },
  );

  app.get<{ Querystring: z.infer<typeof statusQuery> }>(
    '/v1/auth/request/status',
    { schema: { querystring: statusQuery } },
    async (request, reply) => {
      const keyHex = boxPublicKeyHex(request.query.publicKey);
      const found = keyHex === null ? undefined : ctx.authRequests.find('terminal', keyHex);
      if (!found) return reply.send({ status: 'not_found', supportsV2: false });
      if (found.response !== null && found.responseAccountId !== null) {
        return reply.send({ status: 'authorized', supportsV2: false });
      }
      return reply.send({ status: 'pending', supportsV2: found.supportsV2 });
    },
  );

  app.post<{ Body: z.infer<typeof responseBody> }>(
    '/v1/auth/response',
    { schema: { body: responseBody }, preHandler: authenticate },
    async (request, reply) => {
      const { publicKey, response } = request.body;
      const answer = answerRequest('terminal', publicKey, response, request.relayUserId);
      return reply.code(answer.status).send(answer.body);
    },
  );

  app.post<{ Body: z.infer<typeof accountRequestBody> }>(
    '/v1/auth/account/request',
    { schema: { body: accountRequestBody } },
    async (request, reply) => {
      const answer = pollRequest('account', request.body.publicKey, false);
      return reply.code(answer.status).send(answer.body);
    },
  );

  app.post<{ Body: z.infer<typeof responseBody> }>(
    '/v1/auth/account/response',
    { schema: { body: responseBody }, preHandler: authenticate },
    async (request, reply) => {
      const { publicKey, response } = request.body;
      const answer = answerRequest('account', publicKey, response, request.relayUserId);
      return reply.code(answer.status).send(answer.body);
    },
  );
}
