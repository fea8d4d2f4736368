import { randomBytes, randomInt } from 'node:crypto';

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

let counter = randomInt(36 ** 4);

function randomFrom(alphabet: string, length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

/**
 * A 25-character id in the shape of the real server's cuid ids (`c` + time + counter + random).
 * Time comes first so that ordering by id is ordering by creation, which is what the cursor of
 * `GET /v2/sessions` relies on (docs/wire.md §4.1). It passes the `isCuid` check of §10.
 */
export function newId(): string {
  counter = (counter + 1) % 36 ** 4;
  const time = Date.now().toString(36).padStart(8, '0');
  const count = counter.toString(36).padStart(4, '0');
  return `c${time}${count}${randomFrom(BASE36, 12)}`;
}

/** The random 12-character id of an `update` event (docs/wire.md §2.3). */
export function newUpdateId(): string {
  return randomFrom(ALPHANUMERIC, 12);
}
