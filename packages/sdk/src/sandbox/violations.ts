import { isAbsolute, resolve, sep } from 'node:path';
import type { Confinement } from './confinement.js';

/**
 * Something the sandbox blocked while a command ran (docs/sandbox.md, "Violations"): a write
 * outside the workspace or to a protected path, a read of a secret, a connection to a host not
 * allowed. Reported on the call's result and on the shell's `violations$`.
 */
export interface SandboxViolation {
  readonly type: 'sandbox.violation';
  /** The call whose command was blocked, when it ran through `toolCall.run()`. */
  readonly callId?: string;
  readonly kind: 'write' | 'read' | 'network';
  /** The path, for `write` and `read`: absolute. */
  readonly path?: string;
  /** The host and port, for `network`: `example.com:443`. */
  readonly host?: string;
  /** What was seen: the runtime's line, or the command's own error line. */
  readonly detail: string;
}

const NETWORK_LINE = /^deny network-outbound (\S+)/;
const SYSCALL_LINE = /^deny \S+ (\/.*)$/;

/** The runtime's own reports (the network proxy's denials, the seccomp observer's writes). */
export function violationsFromRuntime(
  lines: readonly string[],
  confinement: Confinement,
): SandboxViolation[] {
  const out: SandboxViolation[] = [];
  for (const line of lines) {
    const net = NETWORK_LINE.exec(line);
    if (net) {
      out.push({ type: 'sandbox.violation', kind: 'network', host: net[1]!, detail: line });
      continue;
    }
    const sys = SYSCALL_LINE.exec(line);
    if (sys && blockedWrite(sys[1]!, confinement))
      out.push({ type: 'sandbox.violation', kind: 'write', path: sys[1]!, detail: line });
  }
  return out;
}

/** A read-only mount's refusal: what a write outside the writable roots gets. */
const READ_ONLY = /Read-only file system|EROFS|\[Errno 30\]/i;
/** What a `/dev/null` or an empty directory in a denied path's place gives. */
const DENIED =
  /Permission denied|Operation not permitted|Not a directory|EACCES|EPERM|ENOTDIR|\[Errno (?:13|1|20)\]/i;
/** What a read of a secret directory's file gives: the directory is empty inside. */
const NOT_FOUND = /No such file or directory|ENOENT|\[Errno 2\]/i;
const QUOTED = /['‘"`]([^'’"`\n]+)['’"`]/g;

/**
 * Reads the command's error output for failures that the confinement explains: a path named in a
 * line that says "Read-only file system", "Permission denied", … and that lies outside the
 * writable roots, on a denied write path or on a denied read path. A hint, as the runtime's own
 * reports are: the kernel's refusal is what confines; this only says why a command failed.
 */
export function violationsFromStderr(
  stderr: string,
  cwd: string,
  confinement: Confinement,
): SandboxViolation[] {
  const out: SandboxViolation[] = [];
  for (const line of stderr.split('\n')) {
    if (line.length > 4096) continue;
    const readOnly = READ_ONLY.test(line);
    const denied = DENIED.test(line);
    if (!readOnly && !denied && !NOT_FOUND.test(line)) continue;
    for (const candidate of pathsIn(line)) {
      const path = isAbsolute(candidate) ? resolve(candidate) : resolve(cwd, candidate);
      const detail = line.trim();
      const write = (denied || readOnly) && under(path, confinement.denyWrite);
      if (write || (readOnly && !under(path, confinement.allowWrite))) {
        out.push({ type: 'sandbox.violation', kind: 'write', path, detail });
        break;
      }
      if (under(path, confinement.denyRead)) {
        out.push({ type: 'sandbox.violation', kind: 'read', path, detail });
        break;
      }
    }
  }
  return out;
}

/** The same violation once, in the order first seen. */
export function uniqueViolations(violations: readonly SandboxViolation[]): SandboxViolation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    const key = `${v.kind} ${v.path ?? v.host}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One line for the person: `a write to /x`, `a connection to example.com:80`. */
export function describeViolation(v: SandboxViolation): string {
  if (v.kind === 'network') return `a connection to ${v.host}`;
  return v.kind === 'read' ? `a read of ${v.path}` : `a write to ${v.path}`;
}

function pathsIn(line: string): string[] {
  const quoted = [...line.matchAll(QUOTED)].map((m) => m[1]!);
  if (quoted.length > 0) return quoted;
  // `bash: line 1: .bashrc: Permission denied`, `cat: /x: Permission denied`: the field before it.
  const fields = line.split(': ');
  const before = fields.length > 1 ? fields[fields.length - 2]!.trim() : '';
  return before === '' ? [] : [before];
}

function blockedWrite(path: string, c: Confinement): boolean {
  return under(path, c.denyWrite) || !under(path, c.allowWrite);
}

function under(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
}
