/**
 * `happy-session/redaction`: secret detection beyond the writer's defaults (docs/redaction.md):
 * the detectors, an entropy detector to configure, and the values of an environment to register.
 * The writer redacts with `new SessionWriter({ redact })` and `writer.registerSecrets()`.
 * Each group's reason: docs/api.md, "happy-session/redaction".
 */
// Registered secrets: the values to redact wherever they appear, and the writer's option types.
export { secretValuesOf } from './stream/redactor.js';
export type { RedactOptions, RedactionCounts, RegisteredSecret } from './stream/redactor.js';

// Detectors: the defaults to extend, and an entropy detector to tune (docs/redaction.md).
export { DEFAULT_SECRET_DETECTORS } from './stream/secretDetectors.js';
export type { SecretDetector, SecretMatch } from './stream/secretDetectors.js';
export { entropyDetector } from './stream/entropyDetector.js';
export type { EntropyDetectorOptions } from './stream/entropyDetector.js';
