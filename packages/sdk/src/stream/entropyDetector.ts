import type { SecretDetector, SecretMatch } from './secretDetectors.js';

/** Options of {@link entropyDetector}. */
export interface EntropyDetectorOptions {
  /** Shortest run of token characters looked at; default 24. */
  readonly minLength?: number;
  /** Least Shannon entropy, in bits per character, of a run that counts as a secret; default 4.3. */
  readonly minBitsPerChar?: number;
  /** Kind named in the marker and the counts; default `high-entropy`. */
  readonly kind?: string;
}

const TOKEN = /[A-Za-z0-9+/=_-]+/g;

/**
 * A detector for random-looking strings that no format of the default table names (a database
 * password, a signing secret): runs of base64 or hex characters at least `minLength` long, with
 * letters and digits, whose Shannon entropy reaches `minBitsPerChar`. Off by default, since hashes,
 * ids and minified code look the same (docs/redaction.md, "The entropy detector").
 *
 * @example
 * connect({ redact: { detectors: [...DEFAULT_SECRET_DETECTORS, entropyDetector()] } });
 */
export function entropyDetector(options: EntropyDetectorOptions = {}): SecretDetector {
  const minLength = options.minLength ?? 24;
  const minBits = options.minBitsPerChar ?? 4.3;
  return {
    kind: options.kind ?? 'high-entropy',
    *find(text: string): Iterable<SecretMatch> {
      for (const match of text.matchAll(TOKEN)) {
        const token = match[0];
        if (token.length < minLength || !/[0-9]/.test(token) || !/[A-Za-z]/.test(token)) continue;
        if (shannonBits(token) >= minBits) yield { start: match.index, end: match.index + token.length };
      }
    },
  };
}

/** Shannon entropy of a string's characters, in bits per character. */
export function shannonBits(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
