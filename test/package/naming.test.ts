import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The naming table of docs/api.md ("Naming") against the committed API reports
 * (packages/sdk/api/): each row of the page is a rule, read from the page itself, and every public
 * class, interface and export of every entry is held to it. A hostile report beside the real ones
 * breaks each rule once, so a checker that stopped seeing a rule would fail here too.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API = join(ROOT, 'packages/sdk/api/');

interface Row {
  readonly form: string;
  readonly name: string;
  readonly never: readonly string[];
  readonly except: readonly string[];
}

/** The rows of the page's naming table: the backquoted names of each cell. */
function namingTable(doc: string): Row[] {
  const section = doc.split(/^## Naming$/m)[1]?.split(/^## /m)[0] ?? '';
  const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*(act|-)/.test(line))
    .map((line) => {
      const [, name, form, never, except] = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim());
      return { name: ticked(name!)[0]!, form: form!, never: ticked(never!), except: ticked(except!) };
    });
}

interface Member {
  readonly name: string;
  /** `method`, `getter` or `property`. */
  readonly kind: 'method' | 'getter' | 'property';
}

interface Declaration {
  readonly name: string;
  readonly kind: string;
  readonly heritage: string;
  readonly members: readonly Member[];
}

/** Every exported declaration of a report, with the members of its classes and interfaces. */
function declarationsOf(report: string): Declaration[] {
  const lines = report.split(/\r?\n/);
  const found: Declaration[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const head =
      /^export (?:declare )?(?:abstract )?(class|interface|type|function|const|enum|namespace) (\w+)(.*)$/.exec(
        lines[i]!,
      );
    if (!head) continue;
    const [, kind, name, rest] = head;
    const members: Member[] = [];
    if ((kind === 'class' || kind === 'interface') && rest!.trimEnd().endsWith('{')) {
      for (i += 1; i < lines.length && lines[i] !== '}'; i += 1) {
        const member =
          /^ {4}(?:static |protected |abstract |override )*(get |set )?(?:readonly )?([\w$]+)(\??)(\(|:|<| =)/.exec(
            lines[i]!,
          );
        if (!member) continue;
        const [, accessor, memberName, , opener] = member;
        members.push({
          name: memberName!,
          kind: accessor ? 'getter' : opener === '(' || opener === '<' ? 'method' : 'property',
        });
      }
    }
    found.push({ name: name!, kind: kind!, heritage: rest!, members });
  }
  return found;
}

/** What breaks a row, in words: one line per public member, type or class that does. */
function breaches(rows: readonly Row[], declarations: readonly Declaration[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    for (const d of declarations) {
      if (row.except.includes(d.name)) continue;
      switch (row.form) {
        case 'member':
          for (const m of d.members)
            if (row.never.includes(m.name)) out.push(`${d.name}.${m.name}: the table says ${row.name}`);
          break;
        case 'type':
          if (row.never.includes(d.name)) out.push(`${d.name}: the table says ${row.name}`);
          break;
        case 'events':
          for (const m of d.members)
            if (m.name === 'events$' && m.kind !== 'method')
              out.push(`${d.name}.events$ is a ${m.kind}: the table says ${row.name}`);
          break;
        case 'iterable':
          for (const m of d.members) {
            if (!m.name.endsWith('$')) continue;
            const iterable = m.name.slice(0, -1);
            if (!d.members.some((n) => n.name === iterable && n.kind === 'method'))
              out.push(`${d.name}.${m.name} has no ${iterable}(): the table says ${row.name}`);
          }
          break;
        case 'error':
          if (
            d.kind === 'class' &&
            d.name !== row.name &&
            /\bextends (Error|TypeError|RangeError)\b/.test(d.heritage)
          )
            out.push(`${d.name} extends Error: the table says ${row.name}`);
          break;
        default:
          out.push(`unknown rule "${row.form}" in the row of ${row.name}`);
      }
    }
  }
  return out;
}

const rows = namingTable(readFileSync(join(ROOT, 'docs/api.md'), 'utf8'));
const reports = readdirSync(API)
  .filter((file) => file.endsWith('.api.md'))
  .map((file) => ({ file, declarations: declarationsOf(readFileSync(join(API, file), 'utf8')) }));
const everything = reports.flatMap((r) => r.declarations);
const declared = (name: string): Declaration => {
  const found = everything.find((d) => d.name === name);
  if (!found) throw new Error(`${name} is in no API report`);
  return found;
};

describe('the naming table of docs/api.md', () => {
  it('has a row for each rule the checker knows', () => {
    expect(rows.map((r) => r.form)).toEqual(['member', 'type', 'events', 'iterable', 'error']);
    expect(rows.find((r) => r.form === 'member')).toMatchObject({
      name: 'answer()',
      never: ['respond', 'reply'],
    });
  });

  it('holds for every public class, interface and export of every API report', () => {
    expect(reports.length).toBeGreaterThan(10);
    for (const { file, declarations } of reports)
      expect({ file, breaches: breaches(rows, declarations) }).toEqual({ file, breaches: [] });
  });

  it('reads the reports it checks: the answer, the events and the iterables the rows name are there', () => {
    for (const owner of ['PermissionGate', 'QuestionDesk', 'UserSession'])
      expect(declared(owner).members).toContainEqual({ name: 'answer', kind: 'method' });
    for (const owner of ['PermissionGate', 'QuestionDesk', 'UserSession', 'SessionReader']) {
      expect(declared(owner).members).toContainEqual({ name: 'events$', kind: 'method' });
      expect(declared(owner).members).toContainEqual({ name: 'events', kind: 'method' });
    }
    expect(declared('AnswerResult').kind).toBe('type');
    expect(declared('SessionWriter').members).toContainEqual({ name: 'messages$', kind: 'property' });
    expect(declared('SdkError').heritage).toMatch(/extends Error/);
  });

  it('catches each rule broken once in a hostile report (positive control)', () => {
    const hostile = declarationsOf(
      [
        'export class Gate {',
        '    respond(input: LocalAnswer): RespondResult;',
        '    get events$(): Observable<GateEvent>;',
        '}',
        '',
        'export class Desk {',
        '    readonly events$: Observable<QuestionEvent>;',
        '    reply(id: string): void;',
        '}',
        '',
        'export interface Feed {',
        '    readonly records$: Observable<StoredRecord>;',
        '}',
        '',
        'export type RespondResult = {',
        "    readonly status: 'applied';",
        '};',
        '',
        'export class ToolFailure extends Error {',
        '    constructor(result: ShellCommandResult);',
        '}',
        '',
        'export interface Transport {',
        '    readonly records$: Observable<StoredRecord>;',
        '}',
      ].join('\n'),
    );
    expect(breaches(rows, hostile).sort()).toEqual(
      [
        'Gate.respond: the table says answer()',
        'Desk.reply: the table says answer()',
        'RespondResult: the table says AnswerResult',
        'Gate.events$ is a getter: the table says events$()',
        'Desk.events$ is a property: the table says events$()',
        'Gate.events$ has no events(): the table says name()',
        'Desk.events$ has no events(): the table says name()',
        'Feed.records$ has no records(): the table says name()',
        'ToolFailure extends Error: the table says SdkError',
      ].sort(),
    );
  });
});
