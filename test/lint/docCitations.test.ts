import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenCitations, checkRepository, headingsOf } from '../../scripts/docCitations.js';

/**
 * The doc-citation check `npm run lint` runs (scripts/docCitations.ts): a comment that cites a doc
 * section that does not exist fails it; the repository has none.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = 'test/lint/fixtures/citations.ts';
const readDoc = (name: string): string | undefined => {
  try {
    return readFileSync(join(ROOT, 'docs', name), 'utf8');
  } catch {
    return undefined;
  }
};

describe('doc citations', () => {
  it('finds the broken citations of the fixture, and only those', () => {
    const broken = brokenCitations(FIXTURE, readFileSync(join(ROOT, FIXTURE), 'utf8'), readDoc);
    expect(broken.map((b) => [b.line, b.problem])).toEqual([
      [4, 'docs/permissions.md has no section "No such heading"'],
      [7, 'there is no docs/no-such-page.md'],
      [10, `docs/media.md has no section "Fitting the server's limits"`],
    ]);
  });

  it('reads headings and bold lead-ins as sections, not lines in code fences', () => {
    const sections = headingsOf(
      '# Title\n## `attach()` does\n**Write throughput (missed).** text\n- **A rule.** text\n```\n# not one\n```\n',
    );
    expect([...sections]).toEqual(
      expect.arrayContaining(['Title', '`attach()` does', 'attach() does', 'Write throughput', 'A rule']),
    );
    expect(sections.has('not one')).toBe(false);
  });

  it('finds no broken citation in the repository, and the fixture when it is not left out', () => {
    const broken = checkRepository(ROOT);
    expect(broken.filter((b) => b.file !== FIXTURE)).toEqual([]);
    expect(broken.map((b) => b.file)).toEqual([FIXTURE, FIXTURE, FIXTURE]);
  });

  describe('as npm run lint runs it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'citations-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('fails on a broken citation, naming the file, the line and the section', async () => {
      mkdirSync(join(dir, 'docs'));
      mkdirSync(join(dir, 'packages'));
      writeFileSync(join(dir, 'docs/guide.md'), '# Guide\n\n## Start\n');
      writeFileSync(join(dir, 'packages/ok.ts'), '// See docs/guide.md, "Start".\nexport const a = 1;\n');
      writeFileSync(
        join(dir, 'packages/bad.ts'),
        '\n/** See docs/guide.md, "Finish". */\nexport const b = 2;\n',
      );
      const run = promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'scripts/docCitations.ts'), dir],
        { cwd: ROOT },
      );
      const failure = await run.then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain(
        'packages/bad.ts:2: docs/guide.md, "Finish": docs/guide.md has no section "Finish"',
      );
      expect(failure?.stderr).not.toContain('ok.ts');
    });
  });
});
