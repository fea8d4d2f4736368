import { watch, type FSWatcher } from 'node:fs';
import { lstat, opendir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { comparableName, protectedEntry } from '../policy/protectedPaths.js';
import { NOT_SCANNED, isSecret } from './confinement.js';

/** How long {@link WorkspaceWatch.settle} waits for its own marker before it calls the picture stale. */
const SETTLE_TIMEOUT_MS = 2_000;

/**
 * Keeps the warm sandbox's picture of the protected paths current (docs/sandbox.md, "The warm
 * sandbox"): one inotify watch per directory of the workspace that the scan entered, and
 * {@link stale} turns true as soon as something appears or goes that changes the picture: a
 * protected name at any depth (`sub/.git`, `x/.vscode`, a `HEAD`, a git name beside one, a
 * `.env*`), or one of the sandbox's own mount points (a placeholder or a protected path the host
 * removed or replaced). A new directory is watched and looked into at once, so what was made in it
 * before its watch counts too. The next command then starts a new sandbox on a fresh scan.
 *
 * Fails closed: a watch that cannot be added (the kernel's watch limit), an event without a name,
 * or more events than the kernel's queue may have held without loss, make the picture stale.
 */
export class WorkspaceWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Set<Promise<void>>();
  private readonly markerWaiters = new Map<string, () => void>();
  private events = 0;
  private markers = 0;
  private closed = false;
  /** True once the sandbox's mounts no longer match the workspace. */
  stale = false;

  private mountPoints: ReadonlySet<string> = new Set();
  /** Directories above a mount point, inside the root: bubblewrap makes those that are missing. */
  private mountParents: ReadonlySet<string> = new Set();
  /** While false, the sandbox is starting: bubblewrap making its own mount points is expected. */
  private armed = false;

  private constructor(
    private readonly root: string,
    private readonly markerDir: string,
    private readonly eventBudget: number,
  ) {}

  /**
   * Opens a watch of `root`'s tree; `markerDir` is a private directory of the host's, for
   * {@link settle}. The scan calls {@link add} for each directory before it reads it, so a change
   * is either seen by the scan or by the watch.
   */
  static async open(options: { readonly root: string; readonly markerDir: string }): Promise<WorkspaceWatch> {
    const queued = await readFile('/proc/sys/fs/inotify/max_queued_events', 'utf8').then(
      (text) => Number.parseInt(text, 10) || 16_384,
      () => 16_384,
    );
    const w = new WorkspaceWatch(options.root, options.markerDir, queued / 2);
    w.add(options.markerDir);
    return w;
  }

  /**
   * Names the paths the sandbox about to start mounts over (and bubblewrap creates where they are
   * missing): while it starts, their coming is expected.
   */
  expect(mountPoints: readonly string[]): void {
    this.mountPoints = new Set(mountPoints);
    const parents = new Set<string>();
    for (const p of mountPoints) {
      for (let dir = dirname(p); dir.startsWith(this.root + sep); dir = dirname(dir)) parents.add(dir);
    }
    this.mountParents = parents;
  }

  /**
   * The sandbox is up: once a {@link settle} drained its start's own events, any change to a
   * mount point, or to a directory above one, makes the picture stale.
   */
  async arm(): Promise<void> {
    await this.settle();
    this.armed = true;
  }

  /**
   * Resolves once every change made before the call has been seen: the kernel gives this process's
   * watches their events in order, so the event of a marker file written now comes after them.
   */
  async settle(): Promise<void> {
    if (this.stale || this.closed) return;
    const name = `settle-${this.markers++}`;
    const seen = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), SETTLE_TIMEOUT_MS);
      this.markerWaiters.set(name, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    const marker = join(this.markerDir, name);
    await writeFile(marker, '');
    if (!(await seen)) this.stale = true;
    this.markerWaiters.delete(name);
    await rm(marker, { force: true });
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  /** Watches `dir` (not its subdirectories). */
  add(dir: string): void {
    if (this.closed || this.watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: false }, (type, name) => this.seen(dir, type, name));
      watcher.on('error', () => {
        this.stale = true;
      });
      this.watchers.set(dir, watcher);
    } catch {
      this.stale = true;
    }
  }

  private seen(dir: string, type: string, name: string | Buffer | null): void {
    if (dir === this.markerDir) {
      if (typeof name === 'string') this.markerWaiters.get(name)?.();
      return;
    }
    if (++this.events > this.eventBudget || name === null) {
      this.stale = true;
      return;
    }
    // A file's contents changing moves no mount: only names coming and going do.
    if (this.stale || type !== 'rename') return;
    const path = join(dir, name.toString());
    if (this.mountPoints.has(path) || this.mountParents.has(path)) {
      if (this.armed) this.stale = true;
      else if (this.mountParents.has(path)) this.add(path);
      return;
    }
    if (this.changesPicture(path)) {
      this.stale = true;
      return;
    }
    this.track(this.lookInto(path));
  }

  /**
   * A protected name, a secret or a `HEAD`: the scan would have mounted it. (The git names beside
   * a `HEAD` the scan saw are mount points already, placeholders where missing.)
   */
  private changesPicture(path: string): boolean {
    const segments = relative(this.root, path).split(sep);
    return (
      protectedEntry(segments) !== undefined ||
      isSecret(segments) ||
      comparableName(basename(path)) === 'head'
    );
  }

  /** A new directory: watch it, then read what is already in it (made before the watch). */
  private async lookInto(path: string): Promise<void> {
    const stat = await lstat(path).catch(() => undefined);
    if (!stat?.isDirectory() || NOT_SCANNED.has(basename(path))) return;
    this.add(path);
    const entries = await opendir(path).catch(() => undefined);
    if (!entries) return;
    for await (const entry of entries) {
      const child = join(path, entry.name);
      if (this.mountPoints.has(child) || this.mountParents.has(child)) continue;
      if (this.changesPicture(child)) {
        this.stale = true;
        return;
      }
      if (entry.isDirectory()) this.track(this.lookInto(child));
    }
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch(() => {
      this.stale = true;
    });
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}
