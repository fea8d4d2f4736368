// The floors of the SDK and the borders between the packages (docs/architecture.md, "Floors of
// the SDK"). `npm run lint` runs it; test/layers/layers.test.ts shows each rule catches what it
// is for. Paths are relative to the repository root.
const SDK = '^packages/sdk/src/';
const GROUND = `${SDK}(errors|errorCodes|logger|result|zod)\\.ts$`;
/**
 * The entry files: what the package exports (src/internal.ts: what the relay and the CLI share, not
 * public), never imported from inside the SDK. They are exempt from the floor rules below, as
 * docs/architecture.md ("Floors of the SDK") states: an entry re-exports names from any floor and
 * holds nothing else (test/layers/layers.test.ts, "entry files only re-export").
 */
const ENTRIES = `${SDK}(index|node|user|redaction|protocol/index|ports/index|permissions|media/index|sandbox/index|crypto/index|protocol/v1/index|internal|integrations/[^/]+/index)\\.ts$`;
const folder = (names) => `${SDK}(${names.join('|')})/`;

/** Each floor with the floors below it that it may import (besides itself and the ground). */
const FLOORS = [
  { floor: 'protocol', below: [] },
  { floor: 'crypto', below: [] },
  { floor: 'wire', below: [] },
  // Pure judgement of a call under a configuration (docs/permissions-policy.md): it reads the
  // filesystem for real paths and nothing else, so it stands on the protocol alone.
  { floor: 'policy', below: ['protocol'] },
  { floor: 'ports', below: ['protocol', 'crypto', 'wire'] },
  { floor: 'stream', below: ['protocol', 'crypto', 'wire', 'ports'] },
  // The gate's runtime (docs/permissions.md): it holds calls, hears answers on every channel and
  // records them, and asks policy/ what may run unasked.
  { floor: 'gate', below: ['protocol', 'crypto', 'wire', 'policy', 'ports', 'stream'] },
  { floor: 'media', below: ['protocol', 'crypto', 'wire', 'ports', 'stream'] },
  // The question desk behind scope.ask() (docs/questions.md): it plugs into stream/ as the gate does.
  { floor: 'questions', below: ['protocol', 'crypto', 'wire', 'ports', 'stream'] },
  // The sandbox runs shell calls confined: it reads the protected paths of policy/ and executes
  // for stream/'s toolCall.run(); nothing below imports it.
  { floor: 'sandbox', below: ['protocol', 'crypto', 'wire', 'policy', 'ports', 'stream'] },
  { floor: 'transport', below: ['protocol', 'crypto', 'wire', 'ports', 'stream', 'media'] },
  {
    floor: 'session',
    below: [
      'protocol',
      'crypto',
      'wire',
      'policy',
      'ports',
      'stream',
      'gate',
      'media',
      'questions',
      'transport',
    ],
  },
  // The framework adapters (docs/integrations.md) write through the builders a session hands out.
  {
    floor: 'integrations',
    below: [
      'protocol',
      'crypto',
      'wire',
      'policy',
      'ports',
      'stream',
      'gate',
      'media',
      'sandbox',
      'transport',
      'session',
    ],
  },
];
const ALL = FLOORS.map((f) => f.floor);

module.exports = {
  forbidden: [
    {
      name: 'ground-imports-nothing-above',
      comment:
        'errors, error codes, logger and result are the ground floor: they import no floor of the SDK.',
      severity: 'error',
      from: { path: GROUND },
      to: { path: SDK, pathNot: GROUND },
    },
    ...FLOORS.map(({ floor, below }) => ({
      name: `${floor}-imports-only-downwards`,
      comment: `${floor}/ may import the ground${below.length ? `, ${below.join(', ')}` : ''} and itself, nothing above.`,
      severity: 'error',
      from: { path: `${SDK}${floor}/`, pathNot: ENTRIES },
      to: { path: folder(ALL.filter((f) => f !== floor && !below.includes(f))) },
    })),
    {
      name: 'policy-is-pure',
      comment:
        'policy/ judges a call under a configuration (docs/architecture.md, "Floors of the SDK"): of the packages it uses only the bash parser, never RxJS or another runtime.',
      severity: 'error',
      from: { path: `${SDK}policy/` },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional', 'npm-no-pkg'],
        pathNot: '(^|/)node_modules/web-tree-sitter/',
      },
    },
    {
      name: 'policy-reads-only-the-filesystem',
      comment:
        "policy/ reads real paths and the parser's grammar file: of Node it uses fs, path, os, module and url, never a socket, a process or a timer.",
      severity: 'error',
      from: { path: `${SDK}policy/` },
      to: { dependencyTypes: ['core'], pathNot: '^(node:)?(fs|path|os|module|url)$' },
    },
    {
      name: 'no-entry-from-inside',
      comment:
        'Entry files only hand names on to users; code inside the SDK imports the file that defines a name.',
      severity: 'error',
      from: { path: SDK },
      to: { path: ENTRIES },
    },
    {
      name: 'sdk-through-its-entries',
      comment: 'The relay and the CLI use the SDK as users do: through happy-session and its subpaths.',
      severity: 'error',
      from: { path: '^packages/(relay|cli)/' },
      to: { path: SDK, pathNot: ENTRIES },
    },
    {
      name: 'sdk-knows-no-relay-or-cli',
      comment: 'Installing the SDK brings no server and no command line.',
      severity: 'error',
      from: { path: '^packages/sdk/' },
      to: { path: '^packages/(relay|cli)/' },
    },
    {
      name: 'relay-knows-no-cli',
      severity: 'error',
      from: { path: '^packages/relay/' },
      to: { path: '^packages/cli/' },
    },
    {
      name: 'no-circular',
      comment:
        'No file reaches itself through its imports (type-only imports count): two rooms that need each other talk through a port one of them owns.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { circular: true },
    },
    {
      name: 'declared-dependencies-only',
      comment: 'A package imports only what its own package.json declares (or Node built-ins).',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      // A peer (the adapters' frameworks) is declared too, though the cruiser may also call it npm-no-pkg.
      to: {
        dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'unknown', 'undetermined'],
        dependencyTypesNot: ['npm-peer'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    exclude: { path: '^packages/[^/]+/dist/' },
  },
};
