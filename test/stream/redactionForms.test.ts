import { describe, expect, it } from 'vitest';
import { memorySession } from '../helpers/memorySession.js';

/**
 * Issue 35, item 7: a registered secret is redacted in its encoded forms too (docs/redaction.md,
 * "Registered values"): base64 and base64url at any byte offset inside a longer encoded text, hex
 * in either case, percent-encoding. Each case is written through a real writer and read back.
 */

const SECRET = 's3cr3t-Pa55w0rd?~>';
const KIND = 'passphrase';
const MARKER = `[redacted:${KIND}]`;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

async function stored(text: string, args?: Record<string, unknown>): Promise<string> {
  const { writer, reader } = memorySession();
  writer.registerSecrets([{ value: SECRET, kind: KIND }]);
  const turn = writer.turn();
  turn.text(text);
  if (args) turn.toolCall({ toolName: 'Bash', args }).end();
  turn.end();
  await writer.flush();
  return JSON.stringify(await reader.messages());
}

/** The encoded secret alone, and within longer encoded texts (every byte offset, both ends). */
const HOSTILE: Array<[string, string, string]> = [
  ['base64', b64(SECRET), b64(SECRET)],
  ['base64url', b64url(SECRET), b64url(SECRET)],
  ['base64 of user:secret (an HTTP Basic header)', `Authorization: Basic ${b64(`user:${SECRET}`)}`, SECRET],
  ['base64 at byte offset 1', b64(`a${SECRET}tail`), SECRET],
  ['base64 at byte offset 2', b64(`ab${SECRET}t`), SECRET],
  ['base64 at byte offset 3', b64(`abc${SECRET}`), SECRET],
  ['base64url at byte offset 1', b64url(`{${SECRET}}`), SECRET],
  ['base64url at byte offset 2', b64url(`pw${SECRET}`), SECRET],
  ['hex', hex(SECRET), hex(SECRET)],
  ['upper-case hex in a longer dump', `0x${hex(`key=${SECRET};`).toUpperCase()}`, SECRET],
  ['percent-encoded in a URL', `https://example.test/login?pw=${encodeURIComponent(SECRET)}&next=/`, SECRET],
];

/** The secret's bytes as the stored text would still show them, decoded back. */
function leaks(storedText: string): boolean {
  if (storedText.includes(SECRET)) return true;
  for (const token of storedText.match(/[A-Za-z0-9+/_%-]{8,}={0,2}/g) ?? []) {
    for (const decoded of [
      Buffer.from(token, 'base64').toString('latin1'),
      Buffer.from(token, 'base64url').toString('latin1'),
      /^[0-9a-fA-F]+$/.test(token) ? Buffer.from(token.replace(/^0x/, ''), 'hex').toString('latin1') : '',
      safeDecode(token),
    ]) {
      if (decoded.includes(SECRET)) return true;
    }
    // At offsets 1 and 2 the base64 text decodes shifted: try each.
    for (const cut of [1, 2, 3]) {
      if (Buffer.from(token.slice(cut), 'base64').toString('latin1').includes(SECRET.slice(3, -3)))
        return true;
    }
  }
  return false;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}

describe('encoded forms of a registered secret are redacted', () => {
  it.each(HOSTILE)('%s', async (_name, text) => {
    const out = await stored(`here: ${text}`);
    expect(out).toContain(MARKER);
    expect(leaks(out)).toBe(false);
  });

  it('in tool arguments at any depth', async () => {
    const out = await stored('start', {
      command: `curl -H "Authorization: Basic ${b64(`me:${SECRET}`)}" https://x.test`,
      env: [{ TOKEN_HEX: hex(SECRET) }],
    });
    expect(out.split(MARKER).length - 1).toBe(2);
    expect(leaks(out)).toBe(false);
  });
});

describe('positive controls: other encoded text is kept exactly', () => {
  it.each([
    ['the base64 of another password', `here: ${b64('an0ther-Pa55w0rd?~>')}`],
    ['the base64 of the secret minus its middle', `here: ${b64(SECRET.slice(0, 4) + SECRET.slice(-4))}`],
    ['a git hash and a uuid', 'here: 3f50e2e0a47b92c13a54db3721714 5b0b133e-8c1d-4a9e-9f1b-2d6c7e8f9a0b'],
    ['ordinary prose and code', 'here: const token = readFileSync(path, "utf8"); // base64 hex %20'],
  ])('%s', async (_name, text) => {
    const out = await stored(text);
    expect(out).toContain(JSON.stringify(text).slice(1, -1));
    expect(out).not.toContain('[redacted:');
  });

  it('the value itself is still redacted once, under its kind', async () => {
    const out = await stored(`pw ${SECRET} end`);
    expect(out).toContain(`pw ${MARKER} end`);
  });
});
