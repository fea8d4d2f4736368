export { SdkError, isSdkError } from './errors.js';
export { ok, err } from './result.js';
export type { Result } from './result.js';
