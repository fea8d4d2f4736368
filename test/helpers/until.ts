/** Options of {@link until}. */
export interface UntilOptions {
  /** How long to keep polling before failing (a bound on a hung test, never a speed check). */
  readonly timeoutMs?: number;
  /** Pause between two checks. */
  readonly intervalMs?: number;
  /** What was waited for, for the failure's message (a function: computed when it fails). */
  readonly what?: string | (() => string | Promise<string>);
}

/** `T` without its falsy values. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `check` until it returns something truthy, and resolves with that value; fails after
 * `timeoutMs` with what it waited for. The one polling helper of the tests: things that happen at
 * their own pace (a relay's answer, a child process, a stream read back).
 */
export async function until<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 10, what = 'the condition' }: UntilOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) {
      const described = typeof what === 'function' ? await what() : what;
      throw new Error(`${described} did not hold within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
