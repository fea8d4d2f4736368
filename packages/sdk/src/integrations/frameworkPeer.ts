import { createRequire } from 'node:module';
import { SdkError } from '../errors.js';

/** Finds a package the way the program's own imports would; throws when it is not installed. */
export type ResolvePackage = (name: string) => void;

const resolveBesideTheSdk: ResolvePackage = (name) => {
  createRequire(import.meta.url).resolve(name);
};

/**
 * Checks that an adapter's framework, an optional peer of the SDK, is installed
 * (docs/integrations.md, "Installing"). Each adapter entry calls it when it is imported, so a
 * program without the framework learns it from a typed error with the install line, instead of a
 * module-not-found deep in the SDK's chunks.
 *
 * @throws {SdkError} `integration.framework_missing`.
 */
export function requireFramework(
  framework: string,
  entry: string,
  resolve: ResolvePackage = resolveBesideTheSdk,
): void {
  try {
    resolve(framework);
  } catch (cause) {
    throw new SdkError(
      'integration.framework_missing',
      `${entry} adapts the npm package ${framework}, which is not installed.`,
      { hint: `npm install ${framework}`, cause },
    );
  }
}
