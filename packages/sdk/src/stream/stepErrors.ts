/**
 * Remembers which step an error first failed in, so that the steps around it end with an error that
 * names the failing step rather than repeating the bare message.
 */
const failedIn = new WeakMap<object, { title: string; message: string }>();

/**
 * A readable message for anything thrown: an `Error`, a string, any other value, and one whose
 * reading throws (a throwing `message` getter, a revoked proxy), so that a call always ends.
 */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message) || error.name;
    if (typeof error === 'string') return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return 'a value that cannot be read was thrown';
    }
  }
}

/**
 * The `error` text a step ends with: the thrown message for the step that failed first, and
 * `step "<title>" failed: <message>` for each step around it.
 */
export function stepError(error: unknown, title: string): string {
  const origin = isObject(error) ? failedIn.get(error) : undefined;
  if (origin) return `step "${origin.title}" failed: ${origin.message}`;
  const message = errorMessage(error);
  if (isObject(error)) failedIn.set(error, { title, message });
  return message;
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}
