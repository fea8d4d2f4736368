import { authChallengeBody } from '../crypto/accountKeys.js';
import type { HappyHttp } from './httpClient.js';
import { AuthResponseSchema } from '../wire/auth.js';
import { expectShape } from '../wire/expectShape.js';

/**
 * Mints a bearer token from the master secret with the challenge flow: a fresh random challenge
 * signed by the account's Ed25519 key, sent to `POST /v1/auth`. Tokens do not expire.
 *
 * @throws {SdkError} `transport.*` when the server cannot be reached or refuses the signature.
 * @see docs/wire.md §1.2
 */
export async function mintToken(http: HappyHttp, masterSecret: Uint8Array): Promise<string> {
  const answer = await http.request<unknown>('POST', '/v1/auth', authChallengeBody(masterSecret));
  return expectShape(AuthResponseSchema, answer, 'POST /v1/auth').token;
}
