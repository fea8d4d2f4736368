/**
 * A signal this soon after the one that started the stop is the same stop, not the person asking
 * twice: a terminal's Ctrl-C reaches every process of the foreground group, and a runner in between
 * (`npx`, `npm run`, tsx's launcher) relays it to the child once more within milliseconds
 * (docs/transport.md, "Graceful shutdown"). A file of its own, free of Node imports, so that
 * `happy-session/internal` stays bundlable for the browser viewer.
 */
export const RELAYED_SIGNAL_WINDOW_MS = 1_000;
