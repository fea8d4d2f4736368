import { config, locales } from 'zod/mini';

// zod/mini loads no message locale: without one every issue would read "Invalid input". English
// is what the SDK's messages have always been (classic zod configures it on import). The setting
// is zod's one global, shared by every copy of zod in the process, so a locale the program chose
// before importing the SDK is left alone (docs/performance.md, "Install size and cold imports").
if (config().localeError === undefined) config(locales.en());

export * from 'zod/mini';
