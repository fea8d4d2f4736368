// Honest engines: no production dependency of the workspace's packages, as the lock file installs
// them, asks for a newer Node than the `engines` of this repository say. CI runs it after `npm ci`.
// (test/package/packedInstall.test.ts checks the same for a fresh install of the packed SDK.)
import { readFileSync } from 'node:fs';
import semver from 'semver';

interface LockEntry {
  readonly version?: string;
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
}

const root = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const minimum = semver.minVersion(root.engines.node)!.version;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
const tooNew = Object.entries(lock.packages).flatMap(([path, entry]) => {
  const range = Array.isArray(entry.engines)
    ? undefined
    : (entry.engines as { node?: string } | undefined)?.node;
  if (!path.includes('node_modules/') || entry.dev || entry.link || !range) return [];
  return semver.satisfies(minimum, range) ? [] : [`${path}@${entry.version}: node ${range}`];
});
if (tooNew.length > 0) {
  process.stderr.write(
    `Production dependencies that need a newer Node than ${minimum}:\n  ${tooNew.join('\n  ')}\n`,
  );
  process.exitCode = 1;
} else {
  process.stdout.write(
    `Every production dependency runs on Node ${minimum} (engines: ${root.engines.node}).\n`,
  );
}
