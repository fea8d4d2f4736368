/**
 * The table of secret formats the writer's redactor looks for (docs/redaction.md). Each row names
 * a kind (it appears in the marker, `[redacted:<kind>]`, and in the writer's counts) and either a
 * pattern or a `find` function. Users extend it by passing their own table:
 * `redact: { detectors: [...DEFAULT_SECRET_DETECTORS, myDetector] }`.
 */

/** Where a secret is inside a string: `text.slice(start, end)` is replaced by the marker. */
export interface SecretMatch {
  readonly start: number;
  readonly end: number;
}

/** One row of the detector table. */
export type SecretDetector =
  | {
      /** Named in the marker and the counts, e.g. `github-token`. */
      readonly kind: string;
      /** What a secret of this kind looks like. The flags `g` and `d` are added when missing. */
      readonly pattern: RegExp;
      /**
       * The capture group that is the secret itself (a password inside a connection string, say);
       * default the whole match.
       */
      readonly group?: number;
      /**
       * Literals one of which every match contains (`ghp_`, `eyj`), compared without regard to
       * case: the pattern only runs on strings that contain one, which keeps the table cheap on
       * ordinary text (docs/redaction.md).
       */
      readonly hints?: readonly string[];
    }
  | {
      readonly kind: string;
      /** Finds secrets by code (the entropy detector does). */
      readonly find: (text: string) => Iterable<SecretMatch>;
    };

const B = '(?<![A-Za-z0-9_])'; // a token starts at a word boundary that counts `_` as a letter
const E = '(?![A-Za-z0-9_])';
/**
 * Not a placeholder (nor a marker already put there): code and docs write `postgres://user:${password}@host`,
 * `$TOKEN`, `<token>`, `{{secret}}`, `%s`, `%(pw)s`, `%PASSWORD%`, `***`, `[redacted:…]` or the word itself where a
 * real value would go. The whole value must have such a shape: a real password that merely starts with
 * `%`, `*` or `$` is still a secret.
 */
const NOT_PLACEHOLDER =
  '(?!(?:\\$\\{[^}\\s]*\\}|\\$\\w+|<[^>\\s]*>|\\{\\{?[^}\\s]*\\}\\}?|%(?:[a-z]|\\([\\w.]+\\)[a-z]|\\w+%)|\\*+|\\[[^\\]\\s]*\\]|password|passwd|pass|pwd|secret|token|changeme|x+)(?:[@"\'\\s;]|$)|$)';

/**
 * The detectors the writer uses by default: formats with a fixed prefix or shape, so ordinary
 * source code and logs do not trigger them (test/stream/redaction.test.ts runs both corpora).
 * Key–value guesses (`password = ...`) are deliberately absent; the entropy detector
 * ({@link entropyDetector}) is available for those who want more, at the price of false positives.
 */
export const DEFAULT_SECRET_DETECTORS: readonly SecretDetector[] = [
  {
    kind: 'private-key',
    hints: ['private key'],
    // A whole PEM or OpenSSH block; a block cut off before its END line is redacted to the end.
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/,
  },
  {
    kind: 'aws-access-key-id',
    hints: ['akia', 'asia', 'abia', 'acca'],
    pattern: new RegExp(`${B}(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}${E}`),
  },
  {
    kind: 'aws-secret-access-key',
    hints: ['secret'],
    pattern: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/i,
    group: 1,
  },
  {
    kind: 'google-api-key',
    hints: ['aiza'],
    pattern: new RegExp(`${B}AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`),
  },
  {
    kind: 'google-oauth-secret',
    hints: ['gocspx-'],
    pattern: new RegExp(`${B}GOCSPX-[0-9A-Za-z_-]{28}(?![0-9A-Za-z_-])`),
  },
  {
    kind: 'azure-client-secret',
    hints: ['q~'],
    pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/,
  },
  { kind: 'digitalocean-token', hints: ['_v1_'], pattern: new RegExp(`${B}do[por]_v1_[a-f0-9]{64}${E}`) },
  {
    kind: 'github-token',
    hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    pattern: new RegExp(`${B}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{60,255})${E}`),
  },
  {
    kind: 'gitlab-token',
    hints: ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glsoat-', 'glcbt-', 'glimt-', 'glft-', 'glagent-'],
    pattern: new RegExp(
      `${B}gl(?:pat|dt|ptt|rt|soat|cbt|imt|ft|agent)-[0-9A-Za-z_.-]{20,}(?![0-9A-Za-z_.-])`,
    ),
  },
  {
    kind: 'slack-token',
    hints: ['xox', 'xapp-'],
    pattern: new RegExp(`${B}(?:xox[abposr]-[0-9A-Za-z-]{10,}|xapp-\\d-[0-9A-Za-z-]{10,})${E}`),
  },
  {
    kind: 'slack-webhook',
    hints: ['hooks.slack.com'],
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9_/-]{20,}/,
  },
  { kind: 'npm-token', hints: ['npm_'], pattern: new RegExp(`${B}npm_[A-Za-z0-9]{36}${E}`) },
  // The auth token lines of an .npmrc, whatever the registry and token format.
  {
    kind: 'npm-token',
    hints: ['_authtoken'],
    pattern: new RegExp(`_authToken\\s*=\\s*["']?${NOT_PLACEHOLDER}([^\\s"']{8,})`),
    group: 1,
  },
  // Anthropic before OpenAI: both start with `sk-`.
  {
    kind: 'anthropic-key',
    hints: ['sk-ant-'],
    pattern: new RegExp(`${B}sk-ant-[a-z]+\\d*-[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])`),
  },
  {
    kind: 'openai-key',
    hints: ['sk-'],
    pattern: new RegExp(
      `${B}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})(?![A-Za-z0-9_-])`,
    ),
  },
  {
    kind: 'jwt',
    hints: ['eyj'],
    pattern: new RegExp(`${B}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])`),
  },
  {
    kind: 'connection-string-password',
    hints: ['://'],
    // A URL with a password: only the password is replaced, the rest stays readable.
    pattern: new RegExp(
      `\\b[a-z][a-z0-9+.-]{1,30}://[^\\s:/?#@"'\`]*:${NOT_PLACEHOLDER}([^\\s@/"'\`]+)@[^\\s@/"'\`]`,
      'i',
    ),
    group: 1,
  },
  {
    kind: 'connection-string-password',
    hints: ['password', 'pwd', 'accountkey', 'sharedaccesskey'],
    // Key=Value; connection strings (ADO.NET, Azure storage and service bus).
    pattern: new RegExp(
      `(?:^|[;"'\\s])(?:Password|Pwd|AccountKey|SharedAccessKey)\\s*=\\s*${NOT_PLACEHOLDER}([^;"'\\s]+)(?=;|$|["'\\s])(?<=(?:Server|Data Source|Host|AccountName|Endpoint|DefaultEndpointsProtocol|User ID|Uid)\\s*=[^\\n]*)`,
      'i',
    ),
    group: 1,
  },
];
