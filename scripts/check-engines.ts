// Honest engines: no production dependency of the workspace's packages, as the lock file installs
// them, asks for a newer Node than the `engines` of this repository say. CI runs it after `npm ci`.
// (test/package/packedInstall.test.ts checks the same for a fresh install of the packed SDK.)
//
// Production is what the workspace packages' `dependencies` and `optionalDependencies` reach,
// followed through the lock file as Node resolves them. The lock's own `dev` / `devOptional` flags
// do not say it: a package that is a dev dependency here and an optional peer of a workspace
// package (the sandbox runtime, the adapters' frameworks) is `devOptional`, yet never installed
// in production.
import { readFileSync } from 'node:fs';
import semver from 'semver';

interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly resolved?: string;
  readonly engines?: { readonly node?: string } | readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

const root = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  workspaces: string[];
};
const minimum = semver.minVersion(root.engines.node)!.version;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };

/** The lock path `name` resolves to from the package at `from`, as Node looks it up. */
function resolve(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (dir === '') return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut >= 0 ? dir.slice(0, cut) : '';
  }
}

/** Every lock path the workspace packages need in production. */
const production = new Set<string>();
const queue = [...root.workspaces];
while (queue.length > 0) {
  const path = queue.pop()!;
  const entry = lock.packages[path];
  if (!entry) continue;
  if (entry.link && entry.resolved) {
    queue.push(entry.resolved);
    continue;
  }
  for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
    const found = resolve(path, name);
    if (found && !production.has(found)) {
      production.add(found);
      queue.push(found);
    }
  }
}

const tooNew = [...production].flatMap((path) => {
  const entry = lock.packages[path]!;
  const range = Array.isArray(entry.engines)
    ? undefined
    : (entry.engines as { node?: string } | undefined)?.node;
  if (entry.link || !range) return [];
  return semver.satisfies(minimum, range) ? [] : [`${path}@${entry.version}: node ${range}`];
});
if (tooNew.length > 0) {
  process.stderr.write(
    `Production dependencies that need a newer Node than ${minimum}:\n  ${tooNew.join('\n  ')}\n`,
  );
  process.exitCode = 1;
} else {
  process.stdout.write(
    `Every production dependency runs on Node ${minimum} (engines: ${root.engines.node}; ${production.size} packages).\n`,
  );
}
