import { describe, expect, it } from 'vitest';
import type { Confinement } from '../../packages/sdk/src/sandbox/confinement.js';
import { violationsFromRuntime, violationsFromStderr } from '../../packages/sdk/src/sandbox/violations.js';

const C: Confinement = {
  allowWrite: ['/w'],
  denyWrite: ['/w/.git', '/w/.bashrc'],
  denyRead: ['/h/.ssh', '/w/.env'],
};

describe("reading the command's error lines for what the sandbox blocked", () => {
  it.each([
    ["touch: cannot touch '../out': Read-only file system", 'write', '/out'],
    ['mkdir: cannot create directory ‘/etc/x’: Read-only file system', 'write', '/etc/x'],
    ['/usr/bin/bash: line 1: .bashrc: Permission denied', 'write', '/w/.bashrc'],
    ['bash: .git/config: Not a directory', 'write', '/w/.git/config'],
    ["Error: EROFS: read-only file system, open '/tmp/x'", 'write', '/tmp/x'],
    ["OSError: [Errno 30] Read-only file system: '/opt/y'", 'write', '/opt/y'],
    ['cat: /h/.ssh/id_ed25519: No such file or directory', 'read', '/h/.ssh/id_ed25519'],
    ['cat: .env: Permission denied', 'read', '/w/.env'],
  ])('%s → a %s of %s', (line, kind, path) => {
    expect(violationsFromStderr(`${line}\n`, '/w', C)).toEqual([
      { type: 'sandbox.violation', kind, path, detail: line },
    ]);
  });

  it.each([
    'cat: missing.txt: No such file or directory',
    'ls: cannot open directory /root/private: Permission denied',
    "touch: cannot touch 'src/a': Read-only file system",
    'error: tests failed',
  ])('%s → nothing the confinement explains', (line) => {
    expect(violationsFromStderr(line, '/w', C)).toEqual([]);
  });
});

describe("the runtime's own reports", () => {
  it('names the host of a refused connection and the path of a refused write outside', () => {
    expect(
      violationsFromRuntime(
        [
          'deny network-outbound example.com:443 (host is not on the allow list)',
          'deny openat /etc/passwd',
          'deny openat /w/src/ok.ts',
        ],
        C,
      ),
    ).toEqual([
      {
        type: 'sandbox.violation',
        kind: 'network',
        host: 'example.com:443',
        detail: 'deny network-outbound example.com:443 (host is not on the allow list)',
      },
      { type: 'sandbox.violation', kind: 'write', path: '/etc/passwd', detail: 'deny openat /etc/passwd' },
    ]);
  });
});
