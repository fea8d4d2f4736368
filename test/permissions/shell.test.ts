import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

function texts(command: string): string[] {
  const split = shell.split(command);
  if (!split.ok) throw new Error(`unparsable: ${split.reason}`);
  return split.commands.map((c) => c.text);
}

function hazards(command: string): string[] {
  const split = shell.split(command);
  if (!split.ok) throw new Error(`unparsable: ${split.reason}`);
  return split.hazards.map((h) => h.kind);
}

describe('shell splitting', () => {
  it.each([
    ['npm test && rm -rf ~', ['npm test', 'rm -rf ~']],
    ['a || b', ['a', 'b']],
    ['a; b', ['a', 'b']],
    ['a | b', ['a', 'b']],
    ['a |& b', ['a', 'b']],
    ['a & b', ['a', 'b']],
    ['a\nb', ['a', 'b']],
    ['! npm test', ['npm test']],
    ['git commit -m "a && b; c"', ['git commit -m "a && b; c"']],
    ['npm run test -- -u 2>&1', ['npm run test -- -u']],
    ['npm test 2>/dev/null', ['npm test']],
    ['npm test # && rm -rf /', ['npm test']],
  ])('%j runs %j, with no hazard', (command, expected) => {
    expect(texts(command)).toEqual(expected);
    expect(hazards(command)).toEqual([]);
  });

  it.each([
    ['echo $(npm test)', 'command_substitution', ['echo $(npm test)', 'npm test']],
    ['npm test `id`', 'command_substitution', ['npm test `id`', 'id']],
    ['echo "$(rm -rf x)"', 'command_substitution', ['echo "$(rm -rf x)"', 'rm -rf x']],
    ['diff <(ls) b', 'process_substitution', ['diff <(ls) b', 'ls']],
    ['(cd x && rm -rf y)', 'subshell', ['cd x', 'rm -rf y']],
    ['{ a; b; }', 'group', ['a', 'b']],
    ['npm test > out.txt', 'redirection', ['npm test']],
    ['npm test >> log', 'redirection', ['npm test']],
    ['sort < in.txt', 'redirection', ['sort']],
    ['a >& out', 'redirection', ['a']],
    ['cat <<EOF\nhello\nEOF', 'heredoc', ['cat']],
    ['cat <<< "$x"', 'redirection', ['cat <<< "$x"']],
    ['PATH=/evil && npm test', 'assignment', ['npm test']],
    ['export PATH=/evil', 'assignment', []],
    ['f() { rm -rf /; }; f', 'function_definition', ['rm -rf /', 'f']],
    ['if true; then rm x; fi', 'control_flow', ['true', 'rm x']],
    ['for f in *; do rm "$f"; done', 'control_flow', ['rm "$f"']],
    ['echo $((1 + 2))', 'unsupported_syntax', ['echo $((1 + 2))']],
  ])('%j has hazard %s and still lists nested commands for deny rules', (command, hazard, expected) => {
    expect(hazards(command)).toContain(hazard);
    expect(texts(command)).toEqual(expected);
  });

  it('marks commands inside substitutions as nested', () => {
    const split = shell.split('echo $(npm test)');
    expect(split).toMatchObject({
      ok: true,
      commands: [
        { text: 'echo $(npm test)', nested: false },
        { text: 'npm test', nested: true },
      ],
    });
  });

  it('keeps a prefix assignment with its command', () => {
    expect(texts('FOO=1 npm test')).toEqual(['FOO=1 npm test']);
    expect(hazards('FOO=1 npm test')).toEqual([]);
  });

  it.each([
    ['echo "unterminated', 'syntax_error'],
    ["echo 'unterminated", 'syntax_error'],
    ['npm test &&', 'syntax_error'],
    ['echo $(', 'syntax_error'],
    ['if then fi', 'syntax_error'],
    ['a )', 'syntax_error'],
    ['', 'empty'],
    ['   \n', 'empty'],
    ['x'.repeat(64 * 1024 + 1), 'too_long'],
  ])('%j is unparsable (%s)', (command, reason) => {
    expect(shell.split(command)).toEqual({ ok: false, reason });
  });

  it('can be loaded again, sharing the grammar', async () => {
    const other = await loadShellParser();
    expect(other.split('a && b')).toEqual(shell.split('a && b'));
  });

  it('loads a grammar given as bytes, and reports a bad one as permissions.shell_unavailable', async () => {
    const { readFile } = await import('node:fs/promises');
    const { createRequire } = await import('node:module');
    const wasm = await readFile(
      createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
    );
    const fromBytes = await loadShellParser({ bashWasm: new Uint8Array(wasm) });
    expect(fromBytes.split('a; b')).toEqual(shell.split('a; b'));
    await expect(loadShellParser({ bashWasm: new Uint8Array([0, 1, 2, 3]) })).rejects.toMatchObject({
      code: 'permissions.shell_unavailable',
    });
  });
});
