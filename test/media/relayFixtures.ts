import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'happy-session';
import { ATTACHMENTS_DIR } from '../../packages/relay/src/db.js';

/** One HTTP request the relay answered, from its debug log. */
export interface RelayRequest {
  method: string;
  url: string;
  status: number;
}

/**
 * A logger for `startRelay` that keeps the relay's per-request log lines, so a test can count the
 * requests the relay really served (no wrapper around the code under test).
 */
export function requestLog(): { logger: Logger; requests: RelayRequest[] } {
  const requests: RelayRequest[] = [];
  const logger: Logger = {
    debug(message, fields) {
      if (message === 'relay request' && fields) requests.push(fields as unknown as RelayRequest);
    },
    info() {},
    warn() {},
    error() {},
  };
  return { logger, requests };
}

/** The attachment requests (request-upload, PUT, request-download, GET of a blob) in `requests`. */
export function attachmentRequests(requests: readonly RelayRequest[]): RelayRequest[] {
  return requests.filter((r) => r.url.includes('/attachments/'));
}

/** How long an upload the client gave up on may take the relay to drop (a bound on a hung relay). */
const DROP_BOUND_MS = 10_000;

/**
 * The blob files the relay stored for a session in its data dir. An upload the client aborted is
 * dropped by the relay when it sees the request close, at its own pace on a busy machine: its
 * temporary file (`.<uuid>.tmp`) is waited for, up to a bound; one that stays after it is listed,
 * so a leak still shows.
 */
export async function storedBlobs(dataDir: string, sessionId: string): Promise<Map<string, Buffer>> {
  const dir = join(dataDir, ATTACHMENTS_DIR, sessionId);
  const blobs = new Map<string, Buffer>();
  let names: string[];
  const deadline = Date.now() + DROP_BOUND_MS;
  for (;;) {
    try {
      names = await readdir(dir);
    } catch {
      return blobs;
    }
    if (!names.some(isTemporary) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const name of names) {
    // An upload the relay is still dropping (its temporary file goes as the listing is read) was
    // never stored; a temporary file that stays is listed, so a leak still shows.
    const bytes = await readFile(join(dir, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (bytes) blobs.set(name, bytes);
  }
  return blobs;
}

function isTemporary(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}
