import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { SdkError } from '../errors.js';
import type { StateObject } from '../ports/sessionState.js';

/** The agentState field that holds the lease (docs/writer-lease.md, "The lease"). */
export const LEASE_FIELD = 'writerLease';

/** Shortest lease a reader accepts; a shorter one is read as this. */
const MIN_TTL_MS = 1_000;
/** Longest lease a reader accepts: a forged or absurd one must not lock a session for long. */
const MAX_TTL_MS = 60 * 60_000;
/**
 * How late the server may store a heartbeat's time: both the Happy server and the relay write
 * `activeAt` at most every 30 s (docs/wire.md §4.5).
 */
const ACTIVE_AT_LAG_MS = 30_000;

/** The writer lease as stored in agentState. */
export interface LeaseRecord {
  /** This machine's identity, compared to tell whether the holder's pid can be checked here. */
  readonly machine: string;
  /** The host name, for people: shown in `session.in_use`. */
  readonly host: string;
  readonly pid: number;
  /** One per process: tells a reused pid, and this process's own leases, apart. */
  readonly process: string;
  /** One per `connect()`: the holder itself. */
  readonly nonce: string;
  /** When the holder took or last renewed it (the holder's clock). */
  readonly renewedAt: number;
  /** How long after its renewal, or after the session's last heartbeat, it lasts. */
  readonly ttlMs: number;
}

/** What the server says of the session's heartbeats (its row's `active` and `activeAt`). */
export interface SessionActivity {
  readonly active: boolean;
  readonly activeAt: number;
}

const PROCESS_NONCE = randomUUID();
let machineIdentity: { machine: string; host: string } | undefined;

/**
 * The machine as the lease names it: the host name and, where the OS has one, its machine id, so
 * two containers that share a host name but not a pid space are told apart.
 */
function thisMachine(): { machine: string; host: string } {
  if (machineIdentity) return machineIdentity;
  const host = hostname();
  let id = '';
  try {
    id = readFileSync('/etc/machine-id', 'utf8').trim().slice(0, 32);
  } catch {
    // No machine id (macOS, Windows, a minimal container): the host name alone.
  }
  machineIdentity = { machine: id ? `${host}#${id}` : host, host };
  return machineIdentity;
}

/** Whether process `pid` exists on this machine (`EPERM`: it exists, under another user). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The leases this process holds, by nonce: whether each holder is still open. */
const heldHere = new Map<string, () => boolean>();

/** The lease stored in `agentState`, or undefined when there is none or it is malformed. */
export function leaseOf(agentState: Readonly<StateObject>): LeaseRecord | undefined {
  const raw = agentState[LEASE_FIELD];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const l = raw as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 512;
  const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (!text(l.machine) || !text(l.process) || !text(l.nonce) || typeof l.host !== 'string') return undefined;
  if (!num(l.pid) || !Number.isInteger(l.pid) || l.pid <= 0 || !num(l.renewedAt) || !num(l.ttlMs))
    return undefined;
  return {
    machine: l.machine,
    host: l.host.slice(0, 256),
    pid: l.pid,
    process: l.process,
    nonce: l.nonce,
    renewedAt: l.renewedAt,
    ttlMs: Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, l.ttlMs)),
  };
}

/**
 * Whether the holder of `lease` is alive (docs/writer-lease.md, "Who holds it"). A holder in this
 * process is alive while its session is open; one on this machine is dead once its pid is gone;
 * any other is alive until its lease runs out, counted from its renewal or from the session's
 * last heartbeat, whichever is later (the heartbeat renews the lease).
 */
export function holderAlive(lease: LeaseRecord, activity: SessionActivity, now = Date.now()): boolean {
  if (lease.process === PROCESS_NONCE) return heldHere.get(lease.nonce)?.() ?? false;
  if (lease.machine === thisMachine().machine && !pidAlive(lease.pid)) return false;
  if (now < lease.renewedAt + lease.ttlMs) return true;
  return activity.active && now < activity.activeAt + lease.ttlMs;
}

/** Options of a {@link WriterLease}. */
export interface WriterLeaseOptions {
  readonly sessionId: string;
  /** The idle heartbeat period: the lease outlasts two missed beats and the server's write lag. */
  readonly idleHeartbeatMs: number;
}

/**
 * This process's lease on one session (docs/writer-lease.md): taken by compare-and-swap on the
 * session's agentState, renewed by the session's heartbeats (and rewritten after a reconnect),
 * released on close. Every agentState write of the holder checks it is still the holder.
 */
export class WriterLease {
  readonly nonce = randomUUID();
  private readonly ttlMs: number;
  private held = false;
  private lost: SdkError | undefined;
  private lostListener: ((error: SdkError) => void) | undefined;

  constructor(private readonly options: WriterLeaseOptions) {
    this.ttlMs = 2 * options.idleHeartbeatMs + ACTIVE_AT_LAG_MS;
  }

  /**
   * Marks the lease as taken (its compare-and-swap succeeded): from now on {@link WriterLease.check}
   * fences writes, and the process counts it as held while `open()` says so.
   */
  hold(open: () => boolean): void {
    this.held = true;
    heldHere.set(this.nonce, open);
  }

  /** Calls `listener` once, when another holder is seen. */
  onLost(listener: (error: SdkError) => void): void {
    this.lostListener = listener;
  }

  /** Follows an agentState another writer stored: another holder there means the lease is lost. */
  watch(agentState: Readonly<StateObject>): void {
    if (!this.held || this.lost) return;
    const error = this.takenOverBy(agentState);
    if (error) this.lose(error);
  }

  /** Forgets this lease in the process (its session closed). */
  forget(): void {
    heldHere.delete(this.nonce);
  }

  /** `current` with this process's lease, fresh. */
  stamped(current: StateObject): StateObject {
    const { machine, host } = thisMachine();
    const own: LeaseRecord = {
      machine,
      host,
      pid: process.pid,
      process: PROCESS_NONCE,
      nonce: this.nonce,
      renewedAt: Date.now(),
      ttlMs: this.ttlMs,
    };
    return { ...current, [LEASE_FIELD]: own as unknown as StateObject[string] };
  }

  /**
   * `current` with the lease taken: refused with `session.in_use` while another live holder has
   * it, unless `takeOver`. Run inside the compare-and-swap, so it judges the value it replaces.
   */
  claim(current: StateObject, activity: SessionActivity, takeOver: boolean): StateObject {
    const held = leaseOf(current);
    if (held && held.nonce !== this.nonce && !takeOver && holderAlive(held, activity)) throw this.inUse(held);
    return this.stamped(current);
  }

  /** `current` renewed; `session.taken_over` when another holder has it now. */
  renewed(current: StateObject): StateObject {
    this.check(current);
    return this.stamped(current);
  }

  /** `current` without the lease, when it is still this one's. */
  released(current: StateObject): StateObject {
    if (leaseOf(current)?.nonce !== this.nonce) return current;
    const rest = { ...current };
    delete rest[LEASE_FIELD];
    return rest;
  }

  /**
   * Throws `session.taken_over` once the lease is lost, or when `current` (the agentState a write
   * replaces) names another holder; nothing before the lease is taken.
   */
  check(current: Readonly<StateObject>): void {
    if (!this.held) return;
    if (this.lost) throw this.lost;
    const error = this.takenOverBy(current);
    if (!error) return;
    this.lose(error);
    throw error;
  }

  private lose(error: SdkError): void {
    this.lost = error;
    this.forget();
    this.lostListener?.(error);
  }

  /** The `session.taken_over` error when `current` names another holder, else undefined. */
  private takenOverBy(current: Readonly<StateObject>): SdkError | undefined {
    const held = leaseOf(current);
    if (!held || held.nonce === this.nonce) return undefined;
    return new SdkError(
      'session.taken_over',
      `Session ${this.options.sessionId} was taken over by process ${held.pid} on ${held.host || held.machine}; this process no longer writes to it.`,
      {
        hint: 'another process opened the session with connect({ sessionId, takeOver: true }); stop here, or take it back the same way',
        details: { sessionId: this.options.sessionId, host: held.host || held.machine, pid: held.pid },
      },
    );
  }

  private inUse(held: LeaseRecord): SdkError {
    const host = held.host || held.machine;
    return new SdkError(
      'session.in_use',
      `Session ${this.options.sessionId} is being written by process ${held.pid} on ${host}.`,
      {
        hint: 'stop that process, or open the session with connect({ sessionId, takeOver: true }) to take it over (the other process is told and stops writing)',
        details: { sessionId: this.options.sessionId, host, pid: held.pid, since: held.renewedAt },
      },
    );
  }
}
