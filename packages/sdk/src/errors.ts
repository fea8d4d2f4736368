import type { SdkErrorCode } from './errorCodes.js';
import type { Logger } from './logger.js';

/**
 * Marks an SdkError. `Symbol.for` gives the same symbol in every copy of this package (two
 * versions in one tree, the ESM and a bundled copy), so {@link isSdkError} and `instanceof`
 * recognise an error made by any of them. The value is the brand's version.
 */
const SDK_ERROR_BRAND: unique symbol = Symbol.for('happy-session.SdkError') as never;

/** The HTTP facts every `transport.*` error of a server's answer carries (docs/errors.md, "Transport"). */
export interface HttpErrorDetails {
  readonly status: number;
  readonly body: unknown;
  readonly method: string;
  readonly path: string;
  /** The wait the server asked for with `Retry-After`, when it did. */
  readonly retryAfterMs?: number;
}

/**
 * The `details` of the codes whose facts a program reads, by code (docs/errors.md): after
 * `isSdkError(e, 'media.too_large')`, `e.details?.maxBytes` is a number. Any other code's
 * `details` is a record of unknowns.
 */
export interface SdkErrorDetailsByCode {
  readonly 'media.too_large': {
    /** The input's size in bytes, when known. */
    readonly size?: number;
    /** The limit it passed. */
    readonly maxBytes?: number;
    /** An image's or video's pixels, when too many of them was the reason. */
    readonly width?: number;
    readonly height?: number;
    readonly maxPixels?: number;
    /** The encodings tried to make it fit. */
    readonly tried?: readonly { readonly width: number; readonly height: number; readonly bytes: number }[];
  };
  readonly 'stream.too_large': {
    readonly size: number;
    readonly limit: number;
    readonly messageId: string;
    readonly type: string;
  };
  readonly 'stream.undelivered': { readonly messageIds: readonly string[] };
  readonly 'transport.not_found': HttpErrorDetails;
  readonly 'transport.rate_limited': HttpErrorDetails;
  readonly 'transport.rejected': HttpErrorDetails;
  readonly 'session.request_not_pending': { readonly sessionId: string; readonly callId: string };
  readonly 'session.option_not_offered': {
    readonly callId: string;
    readonly options: readonly { readonly id: string; readonly label: string; readonly kind: string }[];
  };
  readonly 'session.channel_not_in_format': {
    readonly sessionId: string;
    readonly format: 'v1' | 'v2';
    readonly channel: string;
  };
  /** The live writer that holds the session (docs/writer-lease.md). */
  readonly 'session.in_use': {
    readonly sessionId: string;
    readonly host: string;
    readonly pid: number;
    readonly since: number;
  };
  readonly 'session.taken_over': { readonly sessionId: string; readonly host: string; readonly pid: number };
}

/**
 * `details` of an error with code `C`: typed for one code of {@link SdkErrorDetailsByCode}, a
 * record of unknowns for any other code or a union of codes.
 */
export type SdkErrorDetails<C extends string> = [C] extends [keyof SdkErrorDetailsByCode]
  ? SdkErrorDetailsByCode[C]
  : Readonly<Record<string, unknown>>;

/** Options of an {@link SdkError}. */
export interface SdkErrorOptions {
  /** What the user can do about it; appended to the message. */
  readonly hint?: string;
  readonly cause?: unknown;
  /** Machine-readable facts (a status, the ids involved). */
  readonly details?: Record<string, unknown>;
}

/**
 * The one class of the SDK's own failures (the sandbox's `ShellCommandError` is a command's exit
 * status, not the SDK failing; docs/errors.md). `code` is a stable string a program can switch on
 * (typed: a misspelt code does not compile); the message says what went wrong and `hint` what to
 * do about it.
 * Codes are namespaced by layer (`stream.*`, `transport.*`, `media.*`, …), see docs/errors.md.
 *
 * Recognised across bundles and package copies by a brand, not by the class's identity alone:
 * `isSdkError(e)` and `e instanceof SdkError` hold for an SdkError thrown by any copy.
 */
export class SdkError<C extends string = SdkErrorCode> extends Error {
  override readonly name = 'SdkError';
  readonly code: C;
  readonly hint: string | undefined;
  /** Typed per code where {@link SdkErrorDetailsByCode} says (narrow with `isSdkError(e, code)`). */
  readonly details: SdkErrorDetails<C> | undefined;

  /** `code` is checked against `C` (by default every code of {@link SdkErrorCode}), never inferred from it. */
  constructor(code: NoInfer<C>, message: string, options: SdkErrorOptions = {}) {
    super(options.hint ? `${message} (${options.hint})` : message, { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    // What each code's throw sites pass (docs/errors.md); test/errors/typedDetails.test.ts holds them to it.
    this.details = options.details as SdkErrorDetails<C> | undefined;
  }

  /** `instanceof SdkError` holds for an SdkError of any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value);
  }
}

Object.defineProperty(SdkError.prototype, SDK_ERROR_BRAND, { value: 1, enumerable: false });

function hasBrand(value: unknown): value is SdkError<string> {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SDK_ERROR_BRAND] === 1
  );
}

/** True when `value` is an {@link SdkError} (from any copy of this package), optionally with the given code. */
export function isSdkError(value: unknown): value is SdkError;
export function isSdkError<C extends SdkErrorCode>(value: unknown, code: C): value is SdkError<C>;
/**
 * The same for a code of another package's set, named as the type argument:
 * `isSdkError<MyErrorCode>(error, 'my.code')`.
 */
export function isSdkError<C extends string = never>(value: unknown, code: NoInfer<C>): value is SdkError<C>;
export function isSdkError(value: unknown, code?: string): boolean {
  return hasBrand(value) && (code === undefined || value.code === code);
}

/**
 * Runs `fn`, a stream write whose failure must not break its caller (the call, turn or writer may
 * have closed meanwhile), and returns what it returned. An {@link SdkError} it throws is the one
 * kind of swallowed failure: logged as `<what> skipped` with its code, at `level` (debug unless
 * the caller says the loss deserves a warning), and `undefined` is returned. Any other error (a
 * bug, not a closed scope) still reaches the caller.
 */
export function safely<T>(
  logger: Logger,
  what: string,
  fn: () => T,
  level: 'debug' | 'warn' = 'debug',
): T | undefined {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof SdkError)) throw error;
    logger[level](`${what} skipped`, { code: error.code });
    return undefined;
  }
}
