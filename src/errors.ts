/**
 * The one error class of the SDK. `code` is a stable string a program can switch on; the message
 * says what went wrong and `hint` what to do about it.
 *
 * Codes are namespaced by layer (`protocol.*`, `crypto.*`, `stream.*`, `transport.*`,
 * `permissions.*`, `media.*`, `relay.*`, `credentials.*`), so a new module adds codes without
 * touching a central list.
 */
export class SdkError<C extends string = string> extends Error {
  override readonly name = 'SdkError';
  readonly code: C;
  readonly hint: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: C,
    message: string,
    options: { hint?: string; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(options.hint ? `${message} (${options.hint})` : message, { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** True when `value` is an {@link SdkError}, optionally with the given code. */
export function isSdkError<C extends string>(value: unknown, code?: C): value is SdkError<C> {
  return value instanceof SdkError && (code === undefined || value.code === code);
}
