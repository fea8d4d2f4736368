import { SdkError } from '../errors.js';

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Maps a char code to its 6-bit value; both alphabets share one table (the defensive decoder). */
const DECODE = buildDecodeTable();

function buildDecodeTable(): Int16Array {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < 64; i++) {
    table[STANDARD.charCodeAt(i)] = i;
    table[URL_SAFE.charCodeAt(i)] = i;
  }
  return table;
}

const STANDARD_CODES = new TextEncoder().encode(STANDARD);
const URL_SAFE_CODES = new TextEncoder().encode(URL_SAFE);
const PAD = 0x3d; // '='
// Only ASCII is decoded, where every single-byte label reads the same as ASCII.
const asciiDecoder = new TextDecoder('latin1');

/**
 * Writes the characters as bytes, then decodes them once: about three times as fast as building
 * the string four characters at a time, which was a visible part of sealing a record
 * (docs/performance.md).
 */
function encodeWith(bytes: Uint8Array, alphabet: Uint8Array, pad: boolean): string {
  const rest = bytes.length % 3;
  const full = bytes.length - rest;
  const out = new Uint8Array((full / 3) * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1));
  let o = 0;
  for (let i = 0; i < full; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = alphabet[n >> 18]!;
    out[o++] = alphabet[(n >> 12) & 63]!;
    out[o++] = alphabet[(n >> 6) & 63]!;
    out[o++] = alphabet[n & 63]!;
  }
  if (rest === 1) {
    const n = bytes[full]! << 16;
    out[o++] = alphabet[n >> 18]!;
    out[o++] = alphabet[(n >> 12) & 63]!;
    if (pad) out.fill(PAD, o, o + 2);
  } else if (rest === 2) {
    const n = (bytes[full]! << 16) | (bytes[full + 1]! << 8);
    out[o++] = alphabet[n >> 18]!;
    out[o++] = alphabet[(n >> 12) & 63]!;
    out[o++] = alphabet[(n >> 6) & 63]!;
    if (pad) out[o] = PAD;
  }
  return asciiDecoder.decode(out);
}

function invalid(reason: string): SdkError<'crypto.invalid_base64'> {
  return new SdkError('crypto.invalid_base64', `Not valid base64: ${reason}.`, {
    hint: 'pass the exact string the server, app or credentials file produced, without whitespace or line breaks',
  });
}

let platformEncoder: ((bytes: Uint8Array) => string) | undefined;

/**
 * Makes `encode` the encoder of {@link encodeBase64}; it must give the same text. `happy-session/node`
 * installs Node's native one, about four times as fast, since every record the writer seals is encoded
 * (docs/performance.md, "Write throughput"); this layer itself stays browser-safe. `undefined`
 * goes back to the portable encoder.
 */
export function useBase64Encoder(encode: ((bytes: Uint8Array) => string) | undefined): void {
  platformEncoder = encode;
}

/**
 * Standard base64 with padding (RFC 4648 §4): the form of every value on the Happy wire and in
 * `access.key` / `agent.key`.
 *
 * @see docs/wire.md §3.4
 */
export function encodeBase64(bytes: Uint8Array): string {
  return platformEncoder ? platformEncoder(bytes) : encodeWith(bytes, STANDARD_CODES, true);
}

/**
 * URL-safe base64 without padding (RFC 4648 §5): used only for public keys in pairing QR codes
 * and URLs.
 *
 * @see docs/wire.md §3.4
 */
export function encodeBase64Url(bytes: Uint8Array): string {
  return encodeWith(bytes, URL_SAFE_CODES, false);
}

/**
 * Decodes base64 defensively: either alphabet (standard `+/` or URL-safe `-_`, but not both in one
 * string), padded or not. Rejects whitespace, stray characters, a wrong amount of padding, an
 * impossible length, and non-zero leftover bits, so each byte string has exactly one accepted
 * spelling per alphabet.
 *
 * @throws {SdkError} `crypto.invalid_base64` when `text` is anything else.
 * @see docs/wire.md §3.4
 */
export function decodeBase64(text: string): Uint8Array {
  if (typeof text !== 'string') throw invalid('expected a string');
  let end = text.length;
  if (end % 4 === 0 && end > 0) {
    if (text.charCodeAt(end - 1) === 61 /* = */) end--;
    if (text.charCodeAt(end - 1) === 61) end--;
  }
  if (end % 4 === 1) throw invalid(`length ${text.length} cannot encode whole bytes`);
  let standard = false;
  let urlSafe = false;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? DECODE[c]! : -1;
    if (v < 0) throw invalid(`unexpected character at position ${i}`);
    if (c === 43 || c === 47) standard = true;
    else if (c === 45 || c === 95) urlSafe = true;
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
      buffer &= (1 << bits) - 1;
    }
  }
  if (standard && urlSafe) throw invalid('mixes the standard and URL-safe alphabets');
  if (buffer !== 0) throw invalid('non-zero padding bits in the last character');
  return out;
}

/**
 * Decodes the URL-safe form; as lenient as {@link decodeBase64} (either alphabet, padding
 * optional), because a QR payload may be re-encoded by whatever scanned it.
 *
 * @throws {SdkError} `crypto.invalid_base64` when `text` is not base64.
 * @see docs/wire.md §3.4
 */
export function decodeBase64Url(text: string): Uint8Array {
  return decodeBase64(text);
}
