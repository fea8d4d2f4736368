import { createHash } from 'node:crypto';
import { lstat, opendir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SdkError } from '../errors.js';

/** A file of a tree: its content hash and size (a symbolic link hashes its target). */
export interface TreeEntry {
  readonly hash: string;
  readonly size: number;
}

/** Workspace-relative `/` paths of the regular files and links of a tree, with their hashes. */
export type TreeHashes = ReadonlyMap<string, TreeEntry>;

/** Bounds of a preview's copy (docs/sandbox.md, "Preview before approval"). */
export interface TreeBounds {
  /** Files at most; default 50,000. */
  readonly maxFiles: number;
  /** Bytes at most; default 512 MiB. */
  readonly maxBytes: number;
}

/** Hashes every file below `root`, failing with `sandbox.preview_too_large` past the bounds. */
export async function hashTree(root: string, bounds: TreeBounds): Promise<Map<string, TreeEntry>> {
  const out = new Map<string, TreeEntry>();
  let bytes = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for await (const entry of await opendir(dir)) {
      const path = join(dir, entry.name);
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(path, rel);
        continue;
      }
      const hashed = await hashFile(path);
      if (!hashed) continue;
      bytes += hashed.size;
      out.set(rel, hashed);
      if (out.size > bounds.maxFiles || bytes > bounds.maxBytes) {
        throw new SdkError(
          'sandbox.preview_too_large',
          `The workspace is too large to preview (over ${bounds.maxFiles} files or ${bounds.maxBytes} bytes).`,
          { hint: 'raise previewLimits, or answer the request without a preview' },
        );
      }
    }
  };
  await walk(root, '');
  return out;
}

/** The hash of one file, or undefined when it is neither a file nor a link (or is gone). */
export async function hashFile(path: string): Promise<TreeEntry | undefined> {
  const stat = await lstat(path).catch(() => undefined);
  if (!stat) return undefined;
  if (stat.isSymbolicLink()) {
    const target = await readlink(path);
    return { hash: `link:${target}`, size: target.length };
  }
  if (!stat.isFile()) return undefined;
  const bytes = await readFile(path);
  return { hash: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

/** A line diff of two texts cut to `maxLines`: the lines between their common head and tail. */
export function shortDiff(before: string, after: string, maxLines = 20, maxChars = 2_000): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const lines = [
    `@@ line ${head + 1} @@`,
    ...a.slice(head, a.length - tail).map((l) => `-${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+${l}`),
  ];
  let text = lines.slice(0, maxLines).join('\n');
  if (lines.length > maxLines) text += `\n… ${lines.length - maxLines} more lines`;
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/** True when `bytes` reads as UTF-8 text (no NUL, decodes cleanly). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
