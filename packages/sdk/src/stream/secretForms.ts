import { encodeBase64 } from '../crypto/base64.js';

/**
 * The encoded forms of a registered secret that the writer redacts beside the value itself
 * (docs/redaction.md, "Registered values"): its UTF-8 bytes in base64 and base64url at each of the
 * three byte offsets it can have inside a longer encoded text (so `user:secret` encoded for an HTTP
 * Basic header is caught too), in lower- and upper-case hex, and percent-encoded. Each base64 form
 * is the run of characters that only the secret's bits decide; the one or two characters at its
 * edges that also carry neighbouring bytes are left as they are.
 */
export function encodedForms(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const shifted = new Uint8Array(offset + bytes.length);
    shifted.set(bytes, offset);
    const text = encodeBase64(shifted);
    // Character j holds bits 6j..6j+5: only those wholly within the secret's bits are its own.
    const core = text.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * shifted.length) / 6));
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  forms.add(encodeURIComponent(value));
  forms.delete(value);
  return [...forms];
}
