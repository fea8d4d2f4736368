import { describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { requireClaudeAgentSdk } from '../../../packages/sdk/src/integrations/claudeAgent/framework.js';

// The import of `happy-session/claude-agent` where the framework is missing, in a real install:
// test/package/packedInstall.test.ts. Here, the check itself.
describe('the Claude Agent SDK, an optional peer', () => {
  it('where it is not installed, the check throws integration.framework_missing with the install line', () => {
    const missing = (name: string): void => {
      throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    };
    let thrown: unknown;
    try {
      requireClaudeAgentSdk(missing);
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'integration.framework_missing')).toBe(true);
    expect(thrown).toMatchObject({ hint: 'npm install @anthropic-ai/claude-agent-sdk' });
    expect((thrown as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });

  it('where it is installed (this repository), the check passes and the entry imports', async () => {
    expect(() => requireClaudeAgentSdk()).not.toThrow();
    const entry = await import('happy-session/claude-agent');
    expect(Object.keys(entry).sort()).toEqual(['happyCanUseTool', 'happyClaude']);
  });
});
