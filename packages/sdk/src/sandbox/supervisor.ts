/**
 * The program that runs inside the warm sandbox (docs/sandbox.md, "The warm sandbox"): started
 * once per sandbox as `node <file>` under bubblewrap and the runtime's seccomp filter, it reads one
 * JSON request a line on stdin and answers with JSON lines on stdout.
 *
 * - `{"op":"run","id","command","cwd","env","tag"}` runs `bash -c command` in a process group and
 *   session of its own, its environment the host's `env` under the runtime's own variables (the
 *   proxy's user name carries `tag`, so the proxy reports a refused connection for this command);
 *   answers `{"id","s":"o"|"e","d":base64}` per chunk, then `{"id","exit","signal"}`.
 * - `{"op":"kill","id"}` ends the command's group.
 *
 * When a command ends, by itself or killed, everything it started ends too: every process of the
 * sandbox that is neither the sandbox's own (there at the supervisor's start, or a connection
 * of its proxy bridges) nor started by a command still running is killed. A double fork that
 * left its group is an orphan adopted by one of the sandbox's own processes, so it is found too.
 *
 * Written in plain JavaScript (the file is run as it is, by the node that runs the host).
 */
export const SUPERVISOR_SOURCE = String.raw`'use strict';
const { spawn } = require('node:child_process');
const { readdirSync, readFileSync } = require('node:fs');
const { StringDecoder } = require('node:string_decoder');

const HOST_NAMES = new Set(['PATH', 'HOME', 'PWD', 'OLDPWD', 'SHLVL', '_']);
const runtimeEnv = {};
for (const [k, v] of Object.entries(process.env)) if (!HOST_NAMES.has(k)) runtimeEnv[k] = v;
const warmTag = JSON.parse(process.argv[2]);

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
/**
 * Every process of the sandbox, as /proc (bubblewrap's PID namespace) names them, with its parent
 * and the PID this supervisor's own namespace gives it (the seccomp launcher starts a nested one).
 */
function processes() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let status;
    try {
      status = readFileSync('/proc/' + name + '/status', 'utf8');
    } catch {
      continue;
    }
    const field = (key) => (new RegExp('^' + key + ':\\s*(.*)$', 'm').exec(status) || [])[1] || '';
    const nspid = field('NSpid').split(/\s+/).filter(Boolean).map(Number);
    out.set(Number(name), {
      parent: Number(field('PPid')),
      local: nspid.length > 0 ? nspid[nspid.length - 1] : Number(name),
      name: field('Name'),
      zombie: field('State').startsWith('Z'),
    });
  }
  return out;
}
// The sandbox's own processes: bubblewrap's init, the runtime's wrapper, the seccomp launcher and
// proxy bridges, this.
const atStart = processes();
const own = new Set(atStart.keys());
const bridges = new Set([...atStart].filter(([, p]) => p.name === 'socat').map(([pid]) => pid));
/** Leaders of the commands still running: id -> pid (in this supervisor's namespace). */
const leaders = new Map();

function kept(pid, table, live) {
  if (own.has(pid)) return true;
  for (let p = pid, n = 0; p > 0 && n < 1024; p = table.get(p)?.parent ?? -1, n++) {
    if (live.has(table.get(p)?.local) || bridges.has(p)) return true;
    // An orphan: adopted by init or by a subreaper of the sandbox's own (the seccomp launcher is one).
    if (own.has(p)) return false;
  }
  return false;
}

/** Kills what no running command and no part of the sandbox owns; again until nothing is left. */
function reap() {
  for (let round = 0; round < 50; round++) {
    const table = processes();
    const live = new Set(leaders.values());
    const victims = [...table].filter(([pid, p]) => !p.zombie && !kept(pid, table, live));
    if (victims.length === 0) return;
    for (const [, p] of victims) {
      try {
        process.kill(p.local, 'SIGKILL');
      } catch {}
    }
  }
}

function withTag(tag) {
  const env = {};
  for (const [k, v] of Object.entries(runtimeEnv)) {
    let value = v;
    for (const [from, to] of [[warmTag.pct, tag.pct], [warmTag.raw, tag.raw]]) value = value.split(from).join(to);
    env[k] = value;
  }
  return env;
}

function run(request) {
  let child;
  try {
    child = spawn('/bin/bash', ['-c', request.command], {
      cwd: request.cwd,
      env: { ...request.env, ...withTag(request.tag) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  } catch (error) {
    send({ id: request.id, s: 'e', d: Buffer.from('bash: ' + error.message + '\n').toString('base64') });
    send({ id: request.id, exit: 127, signal: null });
    return;
  }
  const id = request.id;
  let done = false;
  const finish = (exit, signal) => {
    if (done) return;
    done = true;
    send({ id, exit, signal });
  };
  child.once('error', (error) => {
    leaders.delete(id);
    send({ id, s: 'e', d: Buffer.from('bash: ' + (error.code || error.message) + '\n').toString('base64') });
    finish(127, null);
  });
  if (child.pid === undefined) return;
  leaders.set(id, child.pid);
  for (const [stream, s] of [[child.stdout, 'o'], [child.stderr, 'e']]) {
    stream.on('data', (chunk) => send({ id, s, d: chunk.toString('base64') }));
  }
  child.once('exit', (code, signal) => {
    leaders.delete(id);
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
    reap();
    const stop = setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish(code, signal);
    }, 2000);
    child.once('close', () => {
      clearTimeout(stop);
      finish(code, signal);
    });
  });
}

function kill(id) {
  const pid = leaders.get(id);
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {}
}

const decoder = new StringDecoder('utf8');
let pending = '';
process.stdin.on('data', (chunk) => {
  pending += decoder.write(chunk);
  let newline;
  while ((newline = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line === '') continue;
    const request = JSON.parse(line);
    if (request.op === 'run') run(request);
    else if (request.op === 'kill') kill(request.id);
  }
});
// The host closed the pipe: the session is over.
process.stdin.on('end', () => process.exit(0));
send({ ready: true });
`;
