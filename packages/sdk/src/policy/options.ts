import type { PermissionsErrorCode } from '../errorCodes.js';
import { SdkError } from '../errors.js';
import { err, ok, type Result } from '../result.js';

/**
 * What choosing an option means, in the spelling of the v2 protocol
 * (`docs/protocol.md`, `permission-request`). ACP spells these with underscores; adapters
 * translate at their edge (permissions docs/permissions-requirements.md §7.2).
 */
export type PermissionOptionKind = 'allow-once' | 'allow-always' | 'reject-once' | 'reject-always';

/** Every option kind, in the order the protocol lists them. */
export const PERMISSION_OPTION_KINDS: readonly PermissionOptionKind[] = [
  'allow-once',
  'allow-always',
  'reject-once',
  'reject-always',
];

/**
 * One button of a `permission-request` (`options[]` in the v2 protocol). `id` is what a
 * `permission-response` sends back as `optionId`; `kind` alone decides what the answer means —
 * never the label or the id (docs/permissions-requirements.md R12.1).
 */
export interface PermissionOption {
  readonly id: string;
  readonly label: string;
  readonly kind: PermissionOptionKind;
}

/**
 * The four options of the `permission-request` example of docs/protocol.md, used when a host
 * offers nothing else. The ids are those of docs/protocol.md: `allow-once`, `allow-session`, `deny`,
 * `deny-always`.
 */
export const DEFAULT_PERMISSION_OPTIONS: readonly PermissionOption[] = Object.freeze([
  Object.freeze({ id: 'allow-once', label: 'Allow once', kind: 'allow-once' as const }),
  Object.freeze({ id: 'allow-session', label: 'Allow for session', kind: 'allow-always' as const }),
  Object.freeze({ id: 'deny', label: 'Deny', kind: 'reject-once' as const }),
  Object.freeze({ id: 'deny-always', label: 'Always deny', kind: 'reject-always' as const }),
]);

/** Codes {@link validateOptions} can fail with. */
export type OptionsErrorCode = Extract<
  PermissionsErrorCode,
  `permissions.option${string}` | 'permissions.invalid_option'
>;

/** Longest option id accepted; ids travel in every response and must stay small. */
export const MAX_OPTION_ID_LENGTH = 128;
/** Longest option label accepted. */
export const MAX_OPTION_LABEL_LENGTH = 200;
/** Most options one request may offer. */
export const MAX_OPTIONS = 16;

/** True when `value` is one of the four {@link PermissionOptionKind}s. */
export function isPermissionOptionKind(value: unknown): value is PermissionOptionKind {
  return typeof value === 'string' && (PERMISSION_OPTION_KINDS as readonly string[]).includes(value);
}

/** True for the kinds that let the tool run. */
export function isAllowKind(kind: PermissionOptionKind): boolean {
  return kind === 'allow-once' || kind === 'allow-always';
}

/**
 * Checks a host's custom options before any request uses them, and returns a frozen copy.
 *
 * Rules: 1 to {@link MAX_OPTIONS} options; each an object with a non-empty `id` (no whitespace or
 * control characters, at most {@link MAX_OPTION_ID_LENGTH} characters), a non-empty `label` and a
 * `kind` among the four of the protocol; ids unique; and at least one `reject-*` option, so the
 * user can always say no.
 */
export function validateOptions(
  options: unknown,
): Result<readonly PermissionOption[], SdkError<OptionsErrorCode>> {
  if (!Array.isArray(options)) {
    return err(fail('permissions.options_not_array', 'Permission options must be an array.'));
  }
  if (options.length === 0) {
    return err(fail('permissions.options_empty', 'Permission options must not be empty.'));
  }
  if (options.length > MAX_OPTIONS) {
    return err(fail('permissions.invalid_option', `At most ${MAX_OPTIONS} permission options are allowed.`));
  }
  const seen = new Set<string>();
  const out: PermissionOption[] = [];
  for (const [index, option] of options.entries()) {
    const checked = checkOption(option, index);
    if (!checked.ok) return checked;
    if (seen.has(checked.value.id)) {
      return err(
        fail(
          'permissions.option_id_duplicate',
          `Permission option id "${checked.value.id}" appears twice; ids must be unique.`,
          { index },
        ),
      );
    }
    seen.add(checked.value.id);
    out.push(checked.value);
  }
  if (!out.some((o) => !isAllowKind(o.kind))) {
    return err(
      fail(
        'permissions.options_no_reject',
        'Permission options must include a reject-once or reject-always option, so the user can refuse.',
      ),
    );
  }
  return ok(Object.freeze(out));
}

/** The first option of the given kind, if the request offers one. */
export function findOptionByKind(
  options: readonly PermissionOption[],
  kind: PermissionOptionKind,
): PermissionOption | undefined {
  return options.find((o) => o.kind === kind);
}

// Whitespace and control characters would make ids ambiguous in logs and UIs.
// eslint-disable-next-line no-control-regex
const BAD_ID_CHARS = /[\s\u0000-\u001f\u007f]/;

function checkOption(option: unknown, index: number): Result<PermissionOption, SdkError<OptionsErrorCode>> {
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    return err(fail('permissions.invalid_option', `Permission option ${index} is not an object.`, { index }));
  }
  const { id, label, kind } = option as Record<string, unknown>;
  if (
    typeof id !== 'string' ||
    id.length === 0 ||
    id.length > MAX_OPTION_ID_LENGTH ||
    BAD_ID_CHARS.test(id)
  ) {
    return err(
      fail(
        'permissions.invalid_option',
        `Permission option ${index} needs an id of 1-${MAX_OPTION_ID_LENGTH} characters without spaces.`,
        { index },
      ),
    );
  }
  if (typeof label !== 'string' || label.trim().length === 0 || label.length > MAX_OPTION_LABEL_LENGTH) {
    return err(
      fail(
        'permissions.invalid_option',
        `Permission option "${id}" needs a non-empty label of at most ${MAX_OPTION_LABEL_LENGTH} characters.`,
        { index },
      ),
    );
  }
  if (!isPermissionOptionKind(kind)) {
    return err(
      fail(
        'permissions.option_kind_unknown',
        `Permission option "${id}" has kind ${JSON.stringify(kind)}; use one of ${PERMISSION_OPTION_KINDS.join(', ')}.`,
        { index },
      ),
    );
  }
  return ok(Object.freeze({ id, label, kind }));
}

function fail(
  code: OptionsErrorCode,
  message: string,
  details?: Record<string, unknown>,
): SdkError<OptionsErrorCode> {
  return new SdkError(code, message, details ? { details } : {});
}
