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

/** The blob files the relay stored for a session in its data dir. */
export async function storedBlobs(dataDir: string, sessionId: string): Promise<Map<string, Buffer>> {
  const dir = join(dataDir, ATTACHMENTS_DIR, sessionId);
  const blobs = new Map<string, Buffer>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return blobs;
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
