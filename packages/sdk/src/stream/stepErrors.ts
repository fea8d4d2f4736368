/**
 * Remembers which step an error first failed in, so that the steps around it end with an error that
 * names the failing step rather than repeating the bare message.
 */
const failedIn = new WeakMap<object, { title: string; message: string }>();

/** A readable message for anything thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * The `error` text a step ends with: the thrown message for the step that failed first, and
 * `step "<title>" failed: <message>` for each step around it.
 */
export function stepError(error: unknown, title: string): string {
  const origin = typeof error === 'object' && error !== null ? failedIn.get(error) : undefined;
  if (origin) return `step "${origin.title}" failed: ${origin.message}`;
  const message = errorMessage(error);
  if (typeof error === 'object' && error !== null) failedIn.set(error, { title, message });
  return message;
}
