import { describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { requireFramework } from '../../packages/sdk/src/integrations/frameworkPeer.js';

/**
 * An adapter's entry checks for its framework when it is imported (docs/integrations.md,
 * "Installing"); the packed install (test/package/packedInstall.test.ts) imports both entries in a
 * project without the frameworks.
 */
describe('requireFramework', () => {
  it('says which package to install when the framework cannot be resolved', () => {
    const missing = new Error("Cannot find module 'ai'");
    let thrown: unknown;
    try {
      requireFramework('ai', 'happy-session/ai', () => {
        throw missing;
      });
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'integration.framework_missing')).toBe(true);
    expect(thrown).toMatchObject({ hint: 'npm install ai', cause: missing });
    expect((thrown as Error).message).toContain('happy-session/ai adapts the npm package ai');
  });

  it('passes where the framework resolves, as both do in this repository', () => {
    const asked: string[] = [];
    requireFramework('@openai/agents', 'happy-session/openai-agents', (name) => {
      asked.push(name);
    });
    expect(asked).toEqual(['@openai/agents']);
    expect(() => requireFramework('ai', 'happy-session/ai')).not.toThrow();
    expect(() => requireFramework('@openai/agents', 'happy-session/openai-agents')).not.toThrow();
    expect(() => requireFramework('not-a-package-anyone-installed', 'x')).toThrow(
      /npm install not-a-package/,
    );
  });
});
