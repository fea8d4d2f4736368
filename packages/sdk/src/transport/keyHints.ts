/**
 * What the hints of credential and token errors say, for each kind of server (docs/transport.md,
 * "Where the server and the credentials come from"): the local relay makes the account of a new
 * key on first use, so `keygen` is all it needs; a Happy server's account comes from the app.
 */

/** Which command gets a key for which server. */
export const GET_A_KEY =
  'for the local relay (`happy-session serve`) run `happy-session keygen`; for a Happy server run `happy-session login` (pairs with the Happy app)';

/** No usable key file. */
export const LOGIN_HINT = `${GET_A_KEY}, or \`happy auth login\`; or set HAPPY_HOME_DIR to the directory that holds agent.key or access.key`;

/** The server refused the token. */
export const REFUSED_TOKEN_HINT = `check that HAPPY_SERVER_URL (or --server) is the server the key belongs to; to get a key for this one: ${GET_A_KEY}`;
