import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryRpc } from 'happy-session/ports';
import { MemoryTransport, SessionWriter } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import { generateDataKey } from 'happy-session/crypto';
import { PermissionGate } from 'happy-session/permissions';
import type { PermissionGateOptions } from 'happy-session/permissions';
import type { SandboxedShell } from 'happy-session/sandbox';

/** A temp directory holding a HOME with keys and shell files, and a workspace repository. */
export interface SandboxWorld {
  readonly dir: string;
  readonly home: string;
  readonly workspace: string;
  /** A directory beside the workspace: outside it. */
  readonly outside: string;
  remove(): Promise<void>;
}

export async function sandboxWorld(): Promise<SandboxWorld> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'hs-sandbox-')));
  const home = join(dir, 'home');
  const workspace = join(dir, 'workspace');
  const outside = join(dir, 'outside');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY OF THE TEMP HOME\n');
  await writeFile(join(home, '.bashrc'), '# the temp home\n');
  await mkdir(join(workspace, '.git'), { recursive: true });
  await mkdir(join(workspace, '.claude'), { recursive: true });
  await writeFile(join(workspace, '.claude', 'settings.json'), '{}\n');
  await writeFile(join(workspace, '.env'), 'TOKEN=secret-of-the-workspace\n');
  await mkdir(outside, { recursive: true });
  return { dir, home, workspace, outside, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A writer on a memory transport with a gate installed, for `toolCall.run()`. */
export async function gatedWriter(
  options: Omit<PermissionGateOptions, 'writer'>,
): Promise<{ writer: SessionWriter; gate: PermissionGate; messages: SessionMessage[] }> {
  const transport = new MemoryTransport();
  const writer = new SessionWriter({ transport, key: { variant: 'dataKey', key: generateDataKey() } });
  const messages: SessionMessage[] = [];
  writer.messages$.subscribe((m) => messages.push(m));
  const gate = await PermissionGate.create({ rpc: new MemoryRpc(), ...options, writer });
  return { writer, gate, messages };
}

/** Runs a Bash call through the gate and the sandboxed executor. */
export async function runBash(writer: SessionWriter, shell: SandboxedShell, args: Record<string, unknown>) {
  const turn = writer.turn();
  const call = turn.toolCall({ toolName: 'Bash', kind: 'execute', args });
  const result = await call.run(shell.execute);
  turn.end();
  return { call, result };
}
