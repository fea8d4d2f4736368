/**
 * A typed outcome for operations that meet bad input from outside (a record that does not decrypt,
 * a message that does not validate). Such failures are values the caller inspects, never exceptions
 * thrown into the host program.
 */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wraps a success value. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

/** Wraps a failure value. */
export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
