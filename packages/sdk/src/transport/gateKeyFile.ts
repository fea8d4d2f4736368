import { randomBytes } from '../crypto/random.js';
import { RECORD_KEY_BYTES } from '../crypto/recordSeal.js';
import type { Logger } from '../logger.js';

/** The file in the Happy home that holds this machine's gate key (docs/permissions.md, "The agent's own records"). */
export const GATE_KEY_FILE = 'gate-record.key';

interface NodeFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string, options: { mode: number; flag: string }): void;
  mkdirSync(path: string, options: { recursive: boolean; mode: number }): void;
}

/**
 * This machine's gate key: 32 random bytes kept in `<home>/gate-record.key` (mode 0600), made on
 * first use. The permission gate seals its records with a key derived from it, so after a restart
 * it trusts exactly the records it wrote itself. `undefined` where there is no file system (a
 * browser) or the file cannot be read or made: the gate then uses a key of its own for this
 * process, and a restart rebuilds no grant (fail closed). Never sent anywhere.
 */
export function loadGateKey(home: string, logger: Logger): Uint8Array | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = process?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  if (!fs) return undefined;
  const file = `${home.replace(/\/+$/, '')}/${GATE_KEY_FILE}`;
  try {
    return parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // Not there yet (or unreadable): make one, unless another process just did.
  }
  try {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const key = randomBytes(RECORD_KEY_BYTES);
    fs.writeFileSync(file, `${hexOf(key)}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    try {
      return parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      logger.warn('the gate key could not be read or made; grants will not survive a restart', {
        file,
        error: String(error),
      });
      return undefined;
    }
  }
}

function parse(text: string): Uint8Array {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error('not a gate key');
  const key = new Uint8Array(hex.length / 2);
  for (let i = 0; i < key.length; i++) key[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return key;
}

function hexOf(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
