import { lstat, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listingOf, type HomeRules } from './hostSecrets.js';
import { commandConfinement, listsOf, type Confinement, type ConfinementInputs } from './confinement.js';
import type { PlaceholderExcludes } from './gitExcludes.js';
import type { RuntimeConfig, RuntimeManager } from './runtime.js';
import { WarmSandbox, newCommandId } from './warmSandbox.js';
import { WorkspaceWatch } from './workspaceWatch.js';

/** One command's use of a warm sandbox: give it back with {@link release} once the command ended. */
export interface WarmLease {
  readonly sandbox: WarmSandbox;
  /** What the sandbox mounted: violations are read against it. */
  readonly confinement: Confinement;
  /** The variables that point the command's git past the sandbox's placeholders. */
  readonly gitEnv: Readonly<Record<string, string>>;
  release(): Promise<void>;
}

/** One warm sandbox, the watch that says when its picture is stale, and who still uses it. */
interface Warm {
  readonly id: string;
  readonly sandbox: WarmSandbox;
  readonly watch: WorkspaceWatch;
  readonly confinement: Confinement;
  readonly gitEnv: Record<string, string>;
  /** Which of the credential paths existed at the start. */
  readonly secrets: string;
  /** The home directories whose entries are hidden one by one, and their listing at the start. */
  readonly home: HomeRules | undefined;
  users: number;
  retired: boolean;
}

/**
 * The warm sandbox of one shell (docs/sandbox.md, "The warm sandbox"), and its replacement when
 * the workspace's protected picture changed, a credential file came or went, or it died. The one
 * it replaces ends once its commands have. Throws what {@link WarmSandbox.start} throws, wrapped by
 * `failed`.
 */
export class WarmPool {
  private warm: Warm | undefined;
  /** Finding (or starting) the sandbox for a command, one command at a time. */
  private switching: Promise<unknown> = Promise.resolve();
  private scratch: Promise<string> | undefined;
  private closed = false;

  constructor(
    private readonly options: {
      readonly manager: RuntimeManager;
      readonly inputs: ConfinementInputs;
      readonly network: RuntimeConfig['network'];
      /** Where bubblewrap and socat are looked for. */
      readonly path: string | undefined;
      readonly excludes: PlaceholderExcludes;
      /** The error a sandbox that cannot start becomes. */
      readonly failed: (error: unknown) => Error;
    },
  ) {}

  /**
   * The warm sandbox for the next command: the one running, once its watch has seen every change
   * made so far and unless it is stale; else a new one on a fresh scan.
   */
  lease(): Promise<WarmLease> {
    const turn = this.switching.then(async () => {
      if (this.closed) throw this.options.failed(new Error('the shell is closed'));
      let warm = this.warm;
      if (warm) await warm.watch.settle();
      if (
        !warm ||
        warm.sandbox.dead ||
        warm.watch.stale ||
        (await this.secretsNow()) !== warm.secrets ||
        (warm.home !== undefined && listingOf(warm.home.listed) !== warm.home.listing)
      ) {
        if (warm) await this.retire(warm);
        this.warm = undefined;
        warm = await this.start();
        this.warm = warm;
      }
      warm.users++;
      const used = warm;
      let released = false;
      return {
        sandbox: used.sandbox,
        confinement: used.confinement,
        gitEnv: used.gitEnv,
        release: async () => {
          if (released) return;
          released = true;
          used.users--;
          if (used.retired && used.users === 0) await this.dispose(used);
        },
      };
    });
    this.switching = turn.catch(() => undefined);
    return turn;
  }

  /** Ends the sandbox and every command in it. */
  async close(): Promise<void> {
    this.closed = true;
    await this.switching;
    const warm = this.warm;
    this.warm = undefined;
    if (warm) await this.dispose(warm);
    if (this.scratch) await rm(await this.scratch, { recursive: true, force: true });
  }

  private async start(): Promise<Warm> {
    const { manager, inputs, excludes } = this.options;
    const root = inputs.workspaceRoot;
    const id = newCommandId();
    const scratch = await (this.scratch ??= mkdtemp(join(tmpdir(), 'happy-sandbox-')));
    const markers = join(scratch, `markers-${id}`);
    await mkdir(markers);
    const watch = await WorkspaceWatch.open({ root, markerDir: markers });
    try {
      const secrets = await this.secretsNow();
      const home = inputs.hideHome?.();
      const confinement = await commandConfinement(
        home ? { ...inputs, denyRead: [...home.denyRead, ...inputs.denyRead] } : inputs,
        (dir) => watch.add(dir),
      );
      const gitEnv = await excludes.envFor(root, confinement.missing ?? [], id);
      watch.expect([...confinement.denyWrite, ...confinement.denyRead]);
      const sandbox = await WarmSandbox.start({
        manager,
        network: this.options.network,
        filesystem: listsOf(confinement),
        scratch,
        cwd: root,
        path: this.options.path,
      }).catch((error: unknown) => {
        manager.cleanupAfterCommand();
        throw this.options.failed(error);
      });
      await watch.arm();
      return { id, sandbox, watch, confinement, gitEnv, secrets, home, users: 0, retired: false };
    } catch (error) {
      watch.close();
      await excludes.remove(id);
      throw error;
    }
  }

  /** Ends `warm` now if no command uses it, else once the last one has ended. */
  private async retire(warm: Warm): Promise<void> {
    warm.retired = true;
    if (warm.users === 0) await this.dispose(warm);
  }

  private async dispose(warm: Warm): Promise<void> {
    warm.watch.close();
    await warm.sandbox.stop();
    // The runtime removes its placeholders once the last sandbox it wrapped is cleaned up.
    this.options.manager.cleanupAfterCommand();
    await this.options.excludes.remove(warm.id);
  }

  /** Which of the credential paths exist now: a `stat` each, no scan. */
  private async secretsNow(): Promise<string> {
    const exists = await Promise.all(
      this.options.inputs.denyRead.map((p) =>
        lstat(p).then(
          () => '1',
          () => '0',
        ),
      ),
    );
    return exists.join('');
  }
}
