import * as z from '../zod.js';

/** `POST /v1/auth` body: the challenge signed with the account's key (docs/wire.md §1.2). */
export const AuthChallengeBodySchema = z.object({
  publicKey: z.string(),
  challenge: z.string(),
  signature: z.string(),
});

/** `POST /v1/auth` answer (docs/wire.md §1.2). */
export const AuthResponseSchema = z.object({ token: z.string().check(z.minLength(1)) });
