export { SdkError, isSdkError } from './errors.js';
export { ok, err } from './result.js';
export type { Result } from './result.js';
export { silentLogger } from './logger.js';
export type { Logger } from './logger.js';
