import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_MODES, loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from './helpers.js';

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const WORDS = ['ls', 'rm', 'npm', 'test', 'git', 'status', '-rf', 'x', 'curl', 'sh', 'echo', 'cd'];
const word = fc.constantFrom(...WORDS);
/** Words of the pool whose further words the command table judges (running code, options). */
const RUNNERS = new Set(['git', 'npm', 'sh']);
const simple = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));
const operator = fc.constantFrom(' && ', ' || ', '; ', ' | ', '\n', ' & ');
const wrap = fc.constantFrom(
  (s: string) => s,
  (s: string) => s,
  (s: string) => `echo $(${s})`,
  (s: string) => `echo \`${s}\``,
  (s: string) => `(${s})`,
  (s: string) => `${s} > out`,
  (s: string) => `{ ${s}; }`,
);

/** A command line built from known simple commands, so the test knows its parts independently of the parser. */
const commandLine = fc
  .record({
    parts: fc.array(simple, { minLength: 1, maxLength: 4 }),
    operators: fc.array(operator, { minLength: 3, maxLength: 3 }),
    wrappers: fc.array(wrap, { minLength: 4, maxLength: 4 }),
    broken: fc.boolean(),
  })
  .map(({ parts, operators, wrappers, broken }) => {
    const line = parts.map((p, i) => wrappers[i]!(p)).reduce((acc, p, i) => `${acc}${operators[i - 1]}${p}`);
    return { parts, line: broken ? `${line} "` : line };
  });

const ruleFor = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 2 }), fc.boolean())
  .map(([ws, prefix]) => ({
    command: ws.join(' '),
    prefix,
    text: `Bash(${ws.join(' ')}${prefix ? ':*' : ''})`,
  }));
const ruleSet = fc.array(ruleFor, { maxLength: 3 });

/** The oracle: a rule matches a part exactly, or as a prefix followed by a space. */
function matchesPart(rule: { command: string; prefix: boolean }, part: string): boolean {
  return part === rule.command || (rule.prefix && part.startsWith(`${rule.command} `));
}

describe('policy properties', () => {
  it('never allows a command when a deny rule matches any of its parts', () => {
    fc.assert(
      fc.property(
        commandLine,
        ruleSet,
        ruleSet,
        ruleSet,
        fc.constantFrom(...PERMISSION_MODES),
        ({ parts, line }, deny, allow, ask, mode) => {
          const result = judge(
            shell,
            {
              mode,
              deny: deny.map((r) => r.text),
              allow: allow.map((r) => r.text),
              ask: ask.map((r) => r.text),
            },
            bash(line),
          );
          const denied = deny.some((r) => parts.some((p) => matchesPart(r, p)));
          if (denied)
            expect(result.verdict, `${line} with deny ${deny.map((r) => r.text).join(', ')}`).not.toBe(
              'allow',
            );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never allows an unparsable command unless the mode is bypassPermissions', () => {
    fc.assert(
      fc.property(commandLine, ruleSet, fc.constantFrom(...PERMISSION_MODES), ({ line }, allow, mode) => {
        if (shell.split(line).ok) return;
        const rules = [...allow.map((r) => r.text), `Bash(${line})`, 'Bash'];
        const result = judge(shell, { mode, allow: rules }, bash(line));
        if (mode === 'bypassPermissions') expect(result.verdict).toBe('allow');
        else expect(result.verdict).not.toBe('allow');
      }),
      { numRuns: 400 },
    );
  });

  it('allows a hazard-free command by rules only when every part matches an allow rule', () => {
    fc.assert(
      fc.property(
        fc.array(simple, { minLength: 1, maxLength: 4 }),
        fc.array(operator, { minLength: 3, maxLength: 3 }),
        ruleSet,
        (parts, operators, allow) => {
          // Past a prefix grant's words, the command table decides what git, npm and sh do with
          // the rest (docs/permissions-policy.md, "The command table"; optionTable.test.ts): this
          // property leaves those lines to it.
          const runner = (p: string): boolean =>
            allow.some(
              (r) => r.prefix && matchesPart(r, p) && RUNNERS.has(p.split(' ')[0]!) && p.trim() !== r.command,
            );
          fc.pre(!parts.some(runner));
          const line = parts.reduce((acc, p, i) => `${acc}${operators[i - 1]}${p}`);
          const result = judge(shell, { allow: allow.map((r) => r.text) }, bash(line));
          const everyPart = parts.every((p) => allow.some((r) => matchesPart(r, p)));
          const wholeExact = allow.some((r) => !r.prefix && r.command === line.trim());
          // `&` (a background job) is outside the grammar the policy allows by rules: it always asks
          // (docs/permissions-policy.md), unless one exact rule names the whole line.
          const background = operators.slice(0, parts.length - 1).includes(' & ');
          expect(result.verdict).toBe((everyPart && !background) || wholeExact ? 'allow' : 'ask');
        },
      ),
      { numRuns: 400 },
    );
  });
});
