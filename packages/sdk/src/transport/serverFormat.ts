import type { Logger } from '../logger.js';
import { RELAY_INFO_PATH, RelayInfoSchema } from '../wire/relayInfo.js';
import type { HappyHttp } from './httpClient.js';

/** A stream format the SDK writes. */
export type StreamFormat = 'v2' | 'v1';

/**
 * The format that shows up at the server `http` points at (docs/v1-format.md, "Which format"): the
 * embedded relay describes itself at `GET /v1/happy-session/relay` and names the format its viewer
 * shows (v2); anything else, the Happy server included (it answers 404 there), gets v1, which
 * today's Happy app renders and the SDK's own reader and the viewer read too. Never throws: a
 * server that cannot say is taken for a Happy server.
 */
export async function formatShownBy(http: HappyHttp, logger: Logger): Promise<StreamFormat> {
  try {
    const parsed = RelayInfoSchema.safeParse(await http.request<unknown>('GET', RELAY_INFO_PATH));
    if (parsed.success) return parsed.data.format;
    logger.debug('the server answers the relay path with something else; writing v1');
  } catch (error) {
    logger.debug('not the embedded relay; writing v1', { error: String(error) });
  }
  return 'v1';
}
