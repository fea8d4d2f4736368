// The SDK's entry points, in the order docs/api.md lists them: the subpath users import, the
// source file that lists its names, and the name tsup gives its build (packages/sdk/tsup.config.ts).
export interface SdkEntry {
  readonly name: string;
  readonly source: string;
  readonly build: string;
}

export const SDK_ENTRIES: readonly SdkEntry[] = [
  { name: 'happy-session', source: 'index.ts', build: 'index' },
  { name: 'happy-session/node', source: 'node.ts', build: 'node' },
  { name: 'happy-session/user', source: 'user.ts', build: 'user' },
  { name: 'happy-session/protocol', source: 'protocol/index.ts', build: 'protocol' },
  { name: 'happy-session/ports', source: 'ports/index.ts', build: 'ports' },
  { name: 'happy-session/redaction', source: 'redaction.ts', build: 'redaction' },
  { name: 'happy-session/permissions', source: 'permissions.ts', build: 'permissions' },
  { name: 'happy-session/media', source: 'media/index.ts', build: 'media' },
  { name: 'happy-session/sandbox', source: 'sandbox/index.ts', build: 'sandbox' },
  { name: 'happy-session/crypto', source: 'crypto/index.ts', build: 'crypto' },
  { name: 'happy-session/v1', source: 'protocol/v1/index.ts', build: 'v1' },
  { name: 'happy-session/ai', source: 'integrations/ai/index.ts', build: 'ai' },
  {
    name: 'happy-session/openai-agents',
    source: 'integrations/openaiAgents/index.ts',
    build: 'openai-agents',
  },
  { name: 'happy-session/claude-agent', source: 'integrations/claudeAgent/index.ts', build: 'claude-agent' },
];

/**
 * The entry the relay, the CLI and this repository's tests import what users do not from. Not
 * public: no API report, not in docs/api.md, not counted against the surface's bounds.
 */
export const INTERNAL_ENTRY: SdkEntry = {
  name: 'happy-session/internal',
  source: 'internal.ts',
  build: 'internal',
};
