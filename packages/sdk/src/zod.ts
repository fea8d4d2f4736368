/**
 * The zod every schema of the SDK is written with: `zod/mini`, zod v4's functional API (the same
 * core, parsing and messages as classic zod; its schemas build several times faster at import,
 * docs/performance.md, "Install size and cold imports"), with English messages. Schema files
 * import it as a namespace (`import * as z from '../zod.js'`) so the build keeps only what they use.
 * The package's `sideEffects` names this file, so that bundlers keep the locale set-up below.
 */
import { config, locales } from 'zod/mini';

// zod/mini loads no message locale: without one every issue would read "Invalid input". English
// is what the SDK's messages have always been (classic zod configures it on import). The setting
// is zod's one global, shared by every copy of zod in the process, so a locale the program chose
// before importing the SDK is left alone (docs/performance.md, "Install size and cold imports").
if (config().localeError === undefined) config(locales.en());

// Types are written `z.output<typeof Schema>` (what `z.infer` names): the declaration bundle
// flattens this namespace into named imports, and `infer` cannot stand alone there.
export * from 'zod/mini';
