import { SdkError } from '../errors.js';

/**
 * The part of `@anthropic-ai/sandbox-runtime` this SDK uses, written out here so that the SDK's
 * declarations name nothing of the optional peer (a program without it still type-checks).
 */
export interface RuntimeConfig {
  readonly network: { readonly allowedDomains: string[]; readonly deniedDomains: string[] };
  readonly filesystem: {
    readonly denyRead: string[];
    readonly allowWrite: string[];
    readonly denyWrite: string[];
  };
  readonly bwrapPath?: string;
  readonly socatPath?: string;
}

interface ViolationEvent {
  readonly line: string;
}

/** The peer's `SandboxManager`, as far as it is used. */
export interface RuntimeManager {
  isSupportedPlatform(): boolean;
  checkDependencies(): { readonly errors: string[]; readonly warnings: string[] };
  initialize(config: RuntimeConfig, ask?: undefined, enableLogMonitor?: boolean): Promise<void>;
  wrapWithSandbox(
    command: string,
    binShell?: string,
    custom?: Partial<RuntimeConfig>,
    signal?: AbortSignal,
    options?: { readonly commandId?: string; readonly commandText?: string },
  ): Promise<string>;
  getSandboxViolationStore(): { getViolationsForCommand(key: string): ViolationEvent[] };
  cleanupAfterCommand(): void;
  reset(): Promise<void>;
}

/** The peer's package name, for hints. */
export const SANDBOX_PEER = '@anthropic-ai/sandbox-runtime';

/** What to install where the sandbox cannot run (docs/sandbox.md, "Where it runs"). */
export const INSTALL_HINT = `install the system packages (apt-get install bubblewrap socat ripgrep) and the npm package ${SANDBOX_PEER}`;

let loading: Promise<RuntimeManager> | undefined;

/**
 * Loads the optional peer on first use, so that importing `happy-session/sandbox` never fails:
 * without the peer, this rejects with `sandbox.unavailable`.
 */
export function loadRuntime(): Promise<RuntimeManager> {
  loading ??= import(SANDBOX_PEER).then(
    (module: { SandboxManager?: RuntimeManager }) => {
      if (!module.SandboxManager) throw new Error(`${SANDBOX_PEER} exports no SandboxManager`);
      return module.SandboxManager;
    },
    (cause: unknown) => {
      loading = undefined;
      throw new SdkError(
        'sandbox.unavailable',
        `The sandbox needs the npm package ${SANDBOX_PEER}, which is not installed.`,
        {
          hint: `npm install ${SANDBOX_PEER}; on Linux also apt-get install bubblewrap socat ripgrep`,
          cause,
        },
      );
    },
  );
  return loading;
}

interface Active {
  readonly key: string;
  users: number;
  readonly ready: Promise<void>;
}

let active: Active | undefined;
/** The last reset, which a new start waits for (the runtime's proxies and mounts are global). */
let settled: Promise<void> = Promise.resolve();

/**
 * The runtime is one per process (its proxies and its mount bookkeeping are global). Shells with
 * the same configuration share it; a shell with another configuration may start it only once the
 * others have closed, else `sandbox.busy`. Resolves with a release function.
 */
export async function acquireRuntime(
  manager: RuntimeManager,
  config: RuntimeConfig,
): Promise<() => Promise<void>> {
  const key = JSON.stringify(config);
  if (active && active.key !== key) {
    if (active.users > 0) {
      throw new SdkError(
        'sandbox.busy',
        'Another sandboxed shell with a different configuration is open in this process.',
        {
          hint: 'close() the other shell first, or give both the same options',
        },
      );
    }
  }
  if (!active || active.key !== key) {
    const previous = active;
    const before = settled;
    const ready = (async () => {
      if (previous) await previous.ready.catch(() => undefined);
      await before;
      await manager.reset();
      await manager.initialize(config, undefined, true);
    })();
    active = { key, users: 0, ready };
  }
  const mine = active;
  mine.users++;
  try {
    await mine.ready;
  } catch (error) {
    mine.users--;
    if (active === mine) active = undefined;
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    mine.users--;
    if (mine.users === 0 && active === mine) {
      active = undefined;
      settled = settled.then(() => manager.reset()).catch(() => undefined);
      await settled;
    }
  };
}
