import * as z from '../zod.js';

/**
 * Where the embedded relay describes itself: `GET /v1/happy-session/relay`, no token needed. It is
 * not a route of the Happy server, which answers 404 there (docs/wire.md §0, "The embedded relay").
 */
export const RELAY_INFO_PATH = '/v1/happy-session/relay';

/**
 * The relay's self-description. `format` is the stream format its web viewer shows best, which
 * `connect({format: 'auto'})` writes (docs/v1-format.md, "Which format").
 */
export const RelayInfoSchema = z.object({
  name: z.literal('happy-session-relay'),
  format: z.enum(['v2', 'v1']),
});
/** The relay's answer at {@link RELAY_INFO_PATH}. */
export type RelayInfo = z.output<typeof RelayInfoSchema>;
