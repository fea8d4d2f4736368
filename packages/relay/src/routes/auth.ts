import type { Hono } from 'hono';
import nacl from 'tweetnacl';
import { AuthChallengeBodySchema as challengeBody } from 'happy-session/internal';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import { answer } from '../http/answers.js';
import type { RelayEnv, RelayMiddleware } from '../http/env.js';
import { readInput } from '../http/input.js';
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
export function authRoutes(app: Hono<RelayEnv>, ctx: RelayContext, authenticate: RelayMiddleware): void {
  const limit = ctx.limits.smallJsonBytes;

  app.post('/v1/auth', async (c) => {
    const input = await readInput(c, { body: challengeBody }, limit);
    if (input instanceof Response) return input;
    const { publicKey, challenge, signature } = input.body;
    if (!verifyChallenge(publicKey, challenge, signature)) {
      return answer(c, 401, { error: 'Invalid signature' });
    }
    const userId = ctx.accounts.upsertByPublicKey(Buffer.from(publicKey, 'base64').toString('hex'));
    return c.json({ success: true, token: ctx.tokens.issue({ user: userId }) });
  });

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

  app.post('/v1/auth/request', async (c) => {
    const input = await readInput(c, { body: terminalRequestBody }, limit);
    if (input instanceof Response) return input;
    const result = pollRequest('terminal', input.body.publicKey, input.body.supportsV2 ?? false);
    return answer(c, result.status, result.body);
  });

  app.get('/v1/auth/request/status', async (c) => {
    const input = await readInput(c, { query: statusQuery });
    if (input instanceof Response) return input;
    const keyHex = boxPublicKeyHex(input.query.publicKey);
    const found = keyHex === null ? undefined : ctx.authRequests.find('terminal', keyHex);
    if (!found) return c.json({ status: 'not_found', supportsV2: false });
    if (found.response !== null && found.responseAccountId !== null) {
      return c.json({ status: 'authorized', supportsV2: false });
    }
    return c.json({ status: 'pending', supportsV2: found.supportsV2 });
  });

  app.post('/v1/auth/response', authenticate, async (c) => {
    const input = await readInput(c, { body: responseBody }, limit);
    if (input instanceof Response) return input;
    const { publicKey, response } = input.body;
    const result = answerRequest('terminal', publicKey, response, c.get('userId'));
    return answer(c, result.status, result.body);
  });

  app.post('/v1/auth/account/request', async (c) => {
    const input = await readInput(c, { body: accountRequestBody }, limit);
    if (input instanceof Response) return input;
    const result = pollRequest('account', input.body.publicKey, false);
    return answer(c, result.status, result.body);
  });

  app.post('/v1/auth/account/response', authenticate, async (c) => {
    const input = await readInput(c, { body: responseBody }, limit);
    if (input instanceof Response) return input;
    const { publicKey, response } = input.body;
    const result = answerRequest('account', publicKey, response, c.get('userId'));
    return answer(c, result.status, result.body);
  });
}
