// Checks that every doc section a source comment cites exists: `docs/<page>.md, "<Heading>"` (one
// or more quoted headings after the file) names a section of that page, and `docs/<page>.md` alone
// names a page that exists. Comments restate docs by citing them, so a renamed heading or a moved page must
// fail lint rather than leave a pointer to nothing. `npm run lint` runs it; a broken citation
// prints `file:line: <citation>: <problem>` and exits 1.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** A citation that names nothing. */
export interface BrokenCitation {
  readonly file: string;
  readonly line: number;
  readonly citation: string;
  readonly problem: string;
}

const CODE_FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
/** `docs/<page>.md`, then optionally `, "A"`, `, "A", "B"` or `, "A" and "B"`. */
const CITATION = /docs\/([\w.-]+\.md)((?:(?:,|\s+and)\s*"[^"\n]+")*)/g;
const HEADING = /"([^"\n]+)"/g;

/**
 * The sections of a markdown text: its headings, as written after the `#`s, and the bold lead-ins
 * that open a paragraph or a list item (`**Videos** (ffmpeg): …`, `**A known tool keeps its kind.**`),
 * each also without its inline-code marks.
 */
export function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const section = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line) ?? /^\s*(?:[-*]\s+)?\*\*([^*]+?)\.?\*\*/.exec(line);
    if (section) {
      // A lead-in may end in a remark: `**Write throughput (both targets missed …).**`.
      for (const name of [section[1]!, section[1]!.replace(/\s*\(.*$/, '')]) {
        headings.add(name);
        headings.add(name.replace(/`/g, ''));
      }
    }
  }
  return headings;
}

/** The comments of a source text (as TypeScript reads it, so no string is taken for one), with
 * their continuation marks (`//`, ` * `) folded into spaces. */
function commentsOf(file: string, source: string): { text: string; line: number }[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (found: ts.CommentRange[] | undefined): void => {
    for (const range of found ?? []) ranges.set(range.pos, range);
  };
  // Every comment is leading trivia of some token: the comments before a node, and those after its
  // end up to the next token (which covers the last ones of a block and of the file).
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(source, node.getFullStart()));
    collect(ts.getLeadingCommentRanges(source, node.getEnd()));
    collect(ts.getTrailingCommentRanges(source, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  collect(ts.getLeadingCommentRanges(source, 0));
  visit(tree);
  // Consecutive `//` lines are one comment: a citation may run on to the next line.
  const sorted = [...ranges.values()].sort((a, b) => a.pos - b.pos);
  const merged: { pos: number; end: number }[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (
      last &&
      /^\s*$/.test(source.slice(last.end, range.pos)) &&
      !source.slice(last.end, range.pos).includes('\n\n')
    )
      last.end = range.end;
    else merged.push({ pos: range.pos, end: range.end });
  }
  return merged.map(({ pos, end }) => ({
    line: source.slice(0, pos).split('\n').length,
    text: source
      .slice(pos, end)
      .replace(/^\/\*\*?|\*\/$/g, '')
      .replace(/\n[ \t]*(?:\*(?!\/)|\/\/)[ \t]?/g, ' ')
      .replace(/^\/\/[ \t]?/, ''),
  }));
}

/** The broken citations of one source text; `docs` reads a doc by its file name (undefined: no such file). */
export function brokenCitations(
  file: string,
  source: string,
  docs: (name: string) => string | undefined,
): BrokenCitation[] {
  const broken: BrokenCitation[] = [];
  for (const comment of commentsOf(file, source)) {
    for (const match of comment.text.matchAll(CITATION)) {
      const name = match[1]!;
      const citation = match[0];
      const markdown = docs(name);
      if (markdown === undefined) {
        broken.push({ file, line: comment.line, citation, problem: `there is no docs/${name}` });
        continue;
      }
      const headings = headingsOf(markdown);
      for (const [, heading] of match[2]!.matchAll(HEADING)) {
        if (!headings.has(heading!))
          broken.push({
            file,
            line: comment.line,
            citation,
            problem: `docs/${name} has no section "${heading}"`,
          });
      }
    }
  }
  return broken;
}

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return codeFiles(path);
    return CODE_FILE.test(entry.name) ? [path] : [];
  });
}

/** Every broken citation in the repository at `root` (packages, scripts, tests, benches, examples). */
export function checkRepository(root: string, fixtures: readonly string[] = []): BrokenCitation[] {
  const docsDir = join(root, 'docs');
  const cache = new Map<string, string | undefined>();
  const docs = (name: string): string | undefined => {
    if (!cache.has(name)) {
      const path = join(docsDir, name);
      cache.set(name, existsSync(path) ? readFileSync(path, 'utf8') : undefined);
    }
    return cache.get(name);
  };
  const dirs = ['packages', 'scripts', 'test', 'bench', 'examples'].map((d) => join(root, d));
  return dirs
    .filter((dir) => existsSync(dir))
    .flatMap(codeFiles)
    .filter((file) => !fixtures.some((fixture) => file.startsWith(join(root, fixture))))
    .flatMap((file) => brokenCitations(relative(root, file), readFileSync(file, 'utf8'), docs));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The repository, or the root given (the check's test runs it on a made-up one).
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  // The check's own test holds broken citations on purpose.
  const broken = checkRepository(root, ['test/lint/fixtures/']);
  for (const b of broken) process.stderr.write(`${b.file}:${b.line}: ${b.citation}: ${b.problem}\n`);
  if (broken.length > 0) {
    process.stderr.write(`${broken.length} doc citations name no section; fix the comment or the doc.\n`);
    process.exitCode = 1;
  } else process.stdout.write('doc citations: every cited section exists\n');
}
