import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { decodeBase64Url, encodeBase64Url } from './base64.js';

const utf8 = new TextEncoder();

/** Bytes of a record key: what {@link sealRecord} takes (docs/permissions.md, "The agent's own records"). */
export const RECORD_KEY_BYTES = 32;

/**
 * The seal of a stored record: HMAC-SHA256, under a key that never leaves the agent's machine,
 * of the record's canonical JSON without its `seal` field (object keys sorted, no spaces), in
 * base64url. A key holder who can read and write the session (the app, the server with a leaked
 * data key) cannot make one, so the permission gate trusts, after a restart, only the records it
 * sealed itself.
 */
export function sealRecord(key: Uint8Array, record: Readonly<Record<string, unknown>>): string {
  return new RecordSeals(key).seal(record);
}

/** True when `record.seal` is the seal of `record` under `key` (compared in constant time). */
export function verifyRecordSeal(key: Uint8Array, record: Readonly<Record<string, unknown>>): boolean {
  return new RecordSeals(key).verify(record);
}

/**
 * {@link sealRecord} and {@link verifyRecordSeal} under one key, with the key's two HMAC blocks
 * hashed once instead of per record: the permission gate seals its record of an answer on the way
 * to the tool's start (docs/performance.md, "The permission round trip").
 */
export class RecordSeals {
  /** The HMAC state after the key: cloned for each record, never updated itself. */
  private readonly keyed: ReturnType<typeof hmac.create>;

  constructor(key: Uint8Array) {
    this.keyed = hmac.create(sha256, key);
  }

  /** The seal of `record` ({@link sealRecord}). */
  seal(record: Readonly<Record<string, unknown>>): string {
    return encodeBase64Url(this.mac(record));
  }

  /** True when `record.seal` is the seal of `record` ({@link verifyRecordSeal}). */
  verify(record: Readonly<Record<string, unknown>>): boolean {
    const seal = record.seal;
    if (typeof seal !== 'string' || seal.length > 64) return false;
    let given: Uint8Array;
    try {
      given = decodeBase64Url(seal);
    } catch {
      return false;
    }
    const expected = this.mac(record);
    if (given.length !== expected.length) return false;
    let diff = 0;
    for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ given[i]!;
    return diff === 0;
  }

  private mac(record: Readonly<Record<string, unknown>>): Uint8Array {
    return this.keyed
      .clone()
      .update(utf8.encode(canonicalJson(withoutSeal(record))))
      .digest();
  }
}

function withoutSeal(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { seal: _seal, ...rest } = record;
  return rest;
}

/** JSON with every object's keys in code-point order, so the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The record key of one session, from the machine's gate key: HMAC-SHA256 of the session id, so
 * one secret file on the machine serves every session, and no two sessions share a key.
 */
export function sessionRecordKey(machineKey: Uint8Array, sessionId: string): Uint8Array {
  return hmac(sha256, machineKey, utf8.encode(`happy-session gate records ${sessionId}`));
}
