import { describe, expect, test } from 'vitest';
import { generateDataKey, decryptRecord } from 'happy-session/crypto';
import { encryptRecordBase64 } from 'happy-session/internal';
import type { RecordKey } from 'happy-session/crypto';
import { SdkError } from 'happy-session';
import type { StateObject } from 'happy-session/ports';
import { VersionedState } from 'happy-session/internal';
import type { VersionedAck } from 'happy-session/internal';

const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };

/** The server side of update-metadata: compare-and-set on a version, like the real server. */
class VersionedStore {
  value: string | null = null;
  version = 0;
  writes = 0;
  async cas(ciphertext: string, expected: number): Promise<VersionedAck> {
    this.writes++;
    if (expected !== this.version)
      return { result: 'version-mismatch', version: this.version, value: this.value };
    this.value = ciphertext;
    this.version++;
    return { result: 'success', version: this.version };
  }
  async read(): Promise<unknown> {
    const r = await decryptRecord(this.value!, key);
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  }
}

describe('VersionedState', () => {
  test("on version-mismatch the update is re-applied to the server's value", async () => {
    const store = new VersionedStore();
    store.value = await encryptRecordBase64({ path: '/p', permissionMode: 'plan' }, key);
    store.version = 3;
    const state = new VersionedState({
      field: 'metadata',
      key,
      value: { path: '/p' },
      version: 0,
      send: (c, v) => store.cas(c, v),
    });
    const result = await state.update((m) => ({ ...m, title: 'x' }));
    expect(result).toEqual({ path: '/p', permissionMode: 'plan', title: 'x' });
    expect(state.version).toBe(4);
    expect(await store.read()).toEqual(result);
  });

  test('concurrent updates are serialized and none is lost', async () => {
    const store = new VersionedStore();
    const state = new VersionedState({
      field: 'agentState',
      key,
      value: {},
      version: 0,
      send: (c, v) => store.cas(c, v),
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => state.update((s) => ({ ...s, [`k${i}`]: i }))));
    expect(store.version).toBe(10);
    expect(store.writes).toBe(10);
    expect(Object.keys((await store.read()) as StateObject)).toHaveLength(10);
  });

  test('no ack: retried, then rejected with transport.timeout and a hint', async () => {
    let calls = 0;
    const state = new VersionedState({
      field: 'metadata',
      key,
      value: {},
      version: 0,
      maxAttempts: 3,
      retryDelayMs: 1,
      send: async () => {
        calls++;
        throw new SdkError('transport.timeout', 'no ack');
      },
    });
    const error = await state.update((m) => m).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((error as SdkError).code).toBe('transport.timeout');
    expect((error as SdkError).hint).toContain('another account');
  });

  test('a remote value is adopted only when its version is newer', async () => {
    const state = new VersionedState({
      field: 'metadata',
      key,
      value: { v: 5 },
      version: 5,
      send: async () => ({ result: 'error' }),
    });
    expect(await state.applyRemote(await encryptRecordBase64({ v: 4 }, key), 4)).toBe(false);
    expect(await state.applyRemote(await encryptRecordBase64({ v: 5 }, key), 5)).toBe(false);
    expect(state.value).toEqual({ v: 5 });
    expect(await state.applyRemote(await encryptRecordBase64({ v: 6 }, key), 6)).toBe(true);
    expect(state.value).toEqual({ v: 6 });
    expect(state.version).toBe(6);
  });
});
