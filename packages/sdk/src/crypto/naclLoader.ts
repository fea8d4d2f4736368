import type Nacl from 'tweetnacl';
import { SdkError } from '../errors.js';

/** The tweetnacl API. */
export type NaclApi = typeof Nacl;

/** The part of `node:module` the loader uses. */
interface NodeModuleApi {
  createRequire(from: string): (id: string) => unknown;
}

/**
 * Loads tweetnacl synchronously with Node's `require` (reached through
 * `process.getBuiltinModule`, so nothing here imports a Node module). Browsers get
 * `naclLoader.browser.ts` instead, through the package's `browser` field, which imports it
 * statically for their bundlers (a bundle of the SDK's sources, such as the viewer's, swaps it in
 * with `sdkSourcesForBrowser` of packages/relay/scripts/build-viewer.ts).
 *
 * @throws {SdkError} `crypto.unavailable` on a runtime that has neither.
 */
export function loadNacl(): NaclApi {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const nodeModule = process?.getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
  if (nodeModule === undefined) {
    throw new SdkError(
      'crypto.unavailable',
      'This runtime can load tweetnacl neither as Node does nor from a bundle.',
      {
        hint: "bundle the program for the browser (bundlers read the package's browser field), or run it on Node >= 20.19",
      },
    );
  }
  return nodeModule.createRequire(import.meta.url)('tweetnacl') as NaclApi;
}
