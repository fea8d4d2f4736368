import { readFileSync } from 'node:fs';
import { URL } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Tests import an entry by its name, never by the path of its file (docs/architecture.md, "Tests
// and the entries"). The entries' files are scripts/sdkEntries.ts's `source`s and the relay's index.
const entryFiles = [
  ...[
    ...readFileSync(new URL('./scripts/sdkEntries.ts', import.meta.url), 'utf8').matchAll(
      /source: '([^']+)\.ts'/g,
    ),
  ].map(([, source]) => `packages/sdk/src/${source}`),
  'packages/relay/src/index',
];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byName = {
  regex: `(^|/)(${entryFiles.map(escape).join('|')})\\.js$`,
  message: "Import the entry by its name ('happy-session', 'happy-session/node', …), as a user does.",
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      'node_modules/**',
      'coverage/**',
      'bench/results.json',
      'test-output/**',
      'test/package/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [byName] }] },
  },
  {
    // The shared helpers build sessions, relays and apps for behaviour tests, as a program does.
    files: ['test/helpers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            byName,
            {
              regex: '(^|/)packages/(sdk|relay)/src/',
              message: 'The shared helpers serve behaviour tests: import the entries, not the sources.',
            },
          ],
        },
      ],
    },
  },
  {
    // The examples are what a user copies: they, their tests included, import the packages by
    // name, never a path into the SDK's or the relay's sources (docs/architecture.md, "Tests and
    // the entries"). Their tests may use the repository's test helpers.
    files: ['examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            byName,
            {
              regex: '(^|/)packages/(sdk|relay)/src/',
              message:
                "Examples import 'happy-session', its subpaths and 'happy-session-relay' by name, as a user does.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The libraries never write to the console; they take a logger. Only the command line prints.
    files: ['packages/sdk/src/**/*.ts', 'packages/relay/src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
);
