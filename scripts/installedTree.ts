import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One installed package: where it is and what its package.json says. */
export interface InstalledPackage {
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  readonly engines?: { readonly node?: string };
  readonly scripts?: Readonly<Record<string, string>>;
}

/** Every package under `node_modules` of `project`, nested ones included. */
export function installedPackages(project: string): InstalledPackage[] {
  const found: InstalledPackage[] = [];
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((name) => join(modules, entry, name))
        : [join(modules, entry)];
      for (const dir of dirs) {
        const manifest = join(dir, 'package.json');
        if (!existsSync(manifest)) continue;
        found.push({ dir, ...(JSON.parse(readFileSync(manifest, 'utf8')) as Omit<InstalledPackage, 'dir'>) });
        visit(join(dir, 'node_modules'));
      }
    }
  };
  visit(join(project, 'node_modules'));
  return found;
}

/** The scripts npm runs at install time that a package declares. */
export function installScripts(pkg: InstalledPackage): string[] {
  return ['preinstall', 'install', 'postinstall'].filter((name) => pkg.scripts?.[name] !== undefined);
}

/** Bytes on disk under `dir`, symlinks not followed. */
export function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += diskBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}
