import { describe, expect, it } from 'vitest';
import { deriveAccountKeys, encodeBase64, generateDataKey, wrapDataKey } from 'happy-session/crypto';
import { encodeBase64Url, encryptRecordBase64, randomBytes } from 'happy-session/internal';
import { fragmentWithoutKey, parseViewerFragment } from '../../packages/relay/src/viewer/page/fragment.js';
import { sessionKeyOf, sessionTitle } from '../../packages/relay/src/viewer/page/keys.js';
import { viewerUrl } from 'happy-session-relay';

describe('viewerUrl', () => {
  it('puts the base64url master secret and the session in the fragment, never in path or query', () => {
    const secret = randomBytes(32);
    const url = new URL(viewerUrl('http://127.0.0.1:4000/', secret, 'cmsession1'));
    expect(url.origin + url.pathname + url.search).toBe('http://127.0.0.1:4000/');
    expect(url.hash).toBe(`#secret=${encodeBase64Url(secret)}&session=cmsession1`);
  });

  it('round-trips through the page fragment parser', () => {
    const secret = randomBytes(32);
    const parsed = parseViewerFragment(new URL(viewerUrl('http://localhost:1', secret, 's1')).hash);
    expect(parsed).toEqual({
      ok: true,
      value: { source: { kind: 'secret', masterSecret: secret }, sessionId: 's1' },
    });
    const noSession = parseViewerFragment(new URL(viewerUrl('http://localhost:1', secret)).hash);
    expect(noSession).toEqual({
      ok: true,
      value: { source: { kind: 'secret', masterSecret: secret }, sessionId: undefined },
    });
  });

  it('refuses a secret that is not 32 bytes', () => {
    expect(() => viewerUrl('http://localhost:1', randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('parseViewerFragment', () => {
  it('falls back to the kept key when the link carries none', () => {
    expect(parseViewerFragment('')).toEqual({
      ok: true,
      value: { source: { kind: 'kept' }, sessionId: undefined },
    });
    expect(parseViewerFragment('#session=abc')).toEqual({
      ok: true,
      value: { source: { kind: 'kept' }, sessionId: 'abc' },
    });
  });

  it('reads a one-time ticket and refuses a malformed one', () => {
    const key = randomBytes(32);
    expect(parseViewerFragment(`#ticket=abc.${encodeBase64Url(key)}&session=s`)).toEqual({
      ok: true,
      value: { source: { kind: 'ticket', id: 'abc', key }, sessionId: 's' },
    });
    for (const bad of ['#ticket=abc', '#ticket=.AAAA', `#ticket=abc.${encodeBase64Url(randomBytes(16))}`]) {
      expect(parseViewerFragment(bad)).toEqual({ ok: false, problem: 'bad-ticket' });
    }
  });

  it('drops the key from the fragment and keeps the session', () => {
    expect(fragmentWithoutKey('#secret=abc&session=s1')).toBe('#session=s1');
    expect(fragmentWithoutKey('#ticket=a.b')).toBe('');
  });

  it('reports a secret that is not base64 or not 32 bytes', () => {
    expect(parseViewerFragment('#secret=%%%')).toEqual({ ok: false, problem: 'bad-secret' });
    expect(parseViewerFragment(`#secret=${encodeBase64Url(randomBytes(31))}`)).toEqual({
      ok: false,
      problem: 'bad-secret',
    });
  });
});

describe('sessionKeyOf (the key the page decrypts a listed session with)', () => {
  const master = randomBytes(32);
  const account = deriveAccountKeys(master);

  it('unwraps a dataKey session with the content secret key', () => {
    const dataKey = generateDataKey();
    const row = { dataEncryptionKey: encodeBase64(wrapDataKey(dataKey, account.content.publicKey)) };
    expect(sessionKeyOf(row, account)).toEqual({ ok: true, value: { variant: 'dataKey', key: dataKey } });
  });

  it('uses the master secret for a legacy session', () => {
    expect(sessionKeyOf({ dataEncryptionKey: null }, account)).toEqual({
      ok: true,
      value: { variant: 'legacy', key: master },
    });
  });

  it('fails, without throwing, for a key wrapped to another account', () => {
    const other = deriveAccountKeys(randomBytes(32));
    const row = { dataEncryptionKey: encodeBase64(wrapDataKey(generateDataKey(), other.content.publicKey)) };
    const result = sessionKeyOf(row, account);
    expect(result.ok).toBe(false);
  });

  it('titles a session by summary, else by the last path segment', async () => {
    const key = { variant: 'legacy' as const, key: master };
    const titled = await encryptRecordBase64(
      { path: '/home/u/proj', host: 'h', summary: { text: 'Fix login', updatedAt: 1 } },
      key,
    );
    const untitled = await encryptRecordBase64({ path: '/home/u/proj', host: 'h' }, key);
    expect(await sessionTitle(titled, key)).toBe('Fix login');
    expect(await sessionTitle(untitled, key)).toBe('proj');
    expect(await sessionTitle('bm90IGVuY3J5cHRlZA==', key)).toBeUndefined();
  });
});
