import { randomBytes } from '../crypto/random.js';
import { RECORD_KEY_BYTES, RecordSeals } from '../crypto/recordSeal.js';
import { SdkError } from '../errors.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { LedgerMessage } from '../stream/permissionLedger.js';
import { PERMISSION_APPLIED_PREFIX, PERMISSION_SETTLED_PREFIX } from '../stream/permissionLedger.js';

/**
 * The gate's own records and their seals (docs/permissions.md, "The agent's own records"): its
 * `permission-request`s, its `permission-response`s (the record of an answer it took by RPC or
 * locally) and its notes that settle a request or confirm the user's own answer. It seals each
 * with a key that stays on the agent's machine, and after a restart trusts only records whose
 * seal checks out, so a key holder who writes a record that claims to be the agent's (any role,
 * any `via`) never becomes the decision, live or on rebuild.
 */
export class GateRecords {
  private readonly seals: RecordSeals;

  /**
   * @param key - the record key ({@link RECORD_KEY_BYTES} bytes or more); default a random one for
   *   this process, so that records of an earlier process are not trusted (fail closed: no grant is
   *   rebuilt from them). `connect()` passes a key kept in the happy home, per session.
   */
  constructor(key: Uint8Array | undefined) {
    if (key !== undefined && !(key instanceof Uint8Array && key.length >= RECORD_KEY_BYTES)) {
      throw new SdkError(
        'permissions.invalid_record_key',
        `The record key must be at least ${RECORD_KEY_BYTES} bytes.`,
        {
          hint: 'pass recordKey: a Uint8Array of 32 random bytes kept on this machine, or leave it out',
        },
      );
    }
    this.seals = new RecordSeals(key ?? randomBytes(RECORD_KEY_BYTES));
  }

  /** The seal of `message` when it is one of the gate's own records, else undefined (the writer's seal hook). */
  seal(message: SessionMessage): string | undefined {
    return isGateRecord(message) ? this.seals.seal(message as unknown as Record<string, unknown>) : undefined;
  }

  /** True when `message` is a gate record whose seal checks out under this gate's key. */
  trusts(message: LedgerMessage): boolean {
    return isGateRecord(message) && this.seals.verify(message as unknown as Record<string, unknown>);
  }
}

function isGateRecord(message: LedgerMessage): boolean {
  if (message.type === 'permission-request') return message.role === 'agent';
  if (message.type === 'permission-response') return message.role === 'user';
  if (message.type !== 'service' || message.role !== 'agent' || typeof message.text !== 'string')
    return false;
  return (
    message.text.startsWith(PERMISSION_SETTLED_PREFIX) || message.text.startsWith(PERMISSION_APPLIED_PREFIX)
  );
}
