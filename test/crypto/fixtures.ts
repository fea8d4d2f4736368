import vectors from '../vectors/happy-crypto.json' with { type: 'json' };

/** The committed copy of the shared crypto vectors (docs/wire.md §10). */
export { vectors };

export function hex(text: string): Uint8Array {
  const pairs = text.match(/../g) ?? [];
  return Uint8Array.from(pairs, (pair) => parseInt(pair, 16));
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** A copy of `bytes` with bit `bit` (0-7) of byte `index` inverted. */
export function flipBit(bytes: Uint8Array, index: number, bit = 0): Uint8Array {
  const copy = bytes.slice();
  copy[index] = copy[index]! ^ (1 << bit);
  return copy;
}
