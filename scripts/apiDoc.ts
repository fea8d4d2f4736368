// docs/api.md, written from the SDK's entry files: each entry's doc comment, then its groups, each
// a `//` comment in the entry file (the group's reason) and the names exported under it. The entry
// files are where a name is added, so the page cannot fall behind them: `npm run api` rewrites
// it and `npm run api -- --check` fails when it differs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_ENTRIES } from './sdkEntries.js';

export interface EntryGroup {
  readonly reason: string;
  readonly names: readonly string[];
}

export interface EntrySurface {
  readonly name: string;
  readonly summary: string;
  readonly groups: readonly EntryGroup[];
}

/** The summary and the groups of one entry file's text. */
export function readEntry(name: string, text: string): EntrySurface {
  const head = /^\/\*\*([\s\S]*?)\*\//.exec(text);
  const summary = (head?.[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter(Boolean)
    .join(' ')
    // The entry's pointer to this page is not repeated on it.
    .replace(/\s*Each group's reason[^"]*"[^"]*"\./, '');
  const body = head ? text.slice(head[0].length) : text;
  const groups: { reason: string; names: string[] }[] = [];
  let comment: string[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line.startsWith('//')) {
      comment.push(line.replace(/^\/\/\s?/, ''));
      continue;
    }
    if (!line.startsWith('export')) continue;
    let statement = line;
    while (!statement.trimEnd().endsWith(';') && i + 1 < lines.length) statement += `\n${lines[(i += 1)]!}`;
    const exported = /export\s+(?:type\s+)?\{([^}]*)\}/.exec(statement);
    if (!exported) continue;
    if (comment.length > 0 || groups.length === 0) {
      groups.push({ reason: comment.join(' ') || '(no reason given)', names: [] });
      comment = [];
    }
    const names = exported[1]!
      .split(',')
      .map((n) =>
        n
          .trim()
          .split(/\s+as\s+/)
          .at(-1)!,
      )
      .filter(Boolean);
    groups.at(-1)!.names.push(...names);
  }
  return { name, summary, groups };
}

/**
 * The naming table of docs/api.md ("Naming"): one name and one form for each act the surface
 * names. test/package/naming.test.ts reads the table from the page and holds every API report to
 * it, so a row is a rule: `never` lists what no public class, interface or export may be, and
 * `except` the classes and interfaces a row does not bind.
 */
export const NAMING: readonly {
  readonly act: string;
  readonly name: string;
  readonly form: 'member' | 'type' | 'events' | 'iterable' | 'error';
  readonly never: string;
  readonly except: string;
}[] = [
  {
    act: "The person's reply to a permission request or a question, at the gate, the desk and the user's side",
    name: '`answer()`',
    form: 'member',
    never: '`respond`, `reply`',
    except: '',
  },
  {
    act: "What an answer got: `AnswerResult<'gate'>`, `<'desk'>`, `<'user'>`, one `status` to switch on",
    name: '`AnswerResult`',
    form: 'type',
    never: '`RespondResult`, `QuestionAnswerResult`, `PermissionAnswerResult`, `RespondErrorCode`',
    except: '',
  },
  {
    act: "The events of a reader, a user session, a gate or a question desk: a method, since the reader's and the user session's take where to start",
    name: '`events$()`',
    form: 'events',
    never: 'a property or a getter `events$`',
    except: '',
  },
  {
    act: 'A live stream as an async iterable that takes an `AbortSignal`: beside every `name$`, its `name()`',
    name: '`name()`',
    form: 'iterable',
    never: 'a `name$` without its `name()`',
    except:
      '`Transport`, `MemoryTransport`, `HappyServerTransport`: the record feeds a reader follows, ports and not streams a program reads; `UserSessionParts`: what a user session is built from, not what it offers',
  },
  {
    act: "A failure the SDK throws or rejects with: a code of the layer's union, a message and a hint",
    name: '`SdkError`',
    form: 'error',
    never: 'another exported class extending `Error`',
    except:
      "`ShellCommandError`: not the SDK failing but a tool call's command exiting with another status than 0, carrying the command's result",
  },
];

/** The naming table as the page shows it. */
function renderNaming(): string[] {
  return [
    '',
    '## Naming',
    '',
    'One name and one form for each act. test/package/naming.test.ts reads this table and fails when',
    'an API report (`packages/sdk/api/`) breaks a row: a public member, type or class that is what',
    '"never" lists, in a class or interface "except" does not name.',
    '',
    '| act | name | rule | never | except |',
    '| --- | ---- | ---- | ----- | ------ |',
    ...NAMING.map(
      (row) => `| ${row.act} | ${row.name} | ${row.form} | ${row.never} | ${row.except || '—'} |`,
    ),
  ];
}

/** Every entry of the SDK, read from packages/sdk/src under `root`. */
export function readSurface(root: string): EntrySurface[] {
  return SDK_ENTRIES.map(({ name, source }) =>
    readEntry(name, readFileSync(join(root, 'packages/sdk/src', source), 'utf8')),
  );
}

export function renderApiDoc(surface: readonly EntrySurface[]): string {
  const lines = [
    '# The public surface',
    '',
    'Every name each entry of `happy-session` exports, in groups, each with the reason it is',
    'public. Written by `npm run api` from the entry files (a group is a `//` comment there and the',
    'exports under it); `npm run api -- --check` fails when this page or an API report',
    '(`packages/sdk/api/`) is stale. Each name is exported from exactly one entry. Breaking changes:',
    'CHANGELOG.md.',
    '',
    '| entry | names |',
    '| ----- | ----- |',
    ...surface.map(
      (entry) =>
        `| [\`${entry.name}\`](#${entry.name.replace(/[^a-z0-9-]/g, '')}) | ${entry.groups.reduce((n, g) => n + g.names.length, 0)} |`,
    ),
    ...renderNaming(),
  ];
  for (const entry of surface) {
    lines.push('', `## ${entry.name}`, '', entry.summary);
    for (const group of entry.groups) {
      lines.push('', `- ${group.reason}`, `  ${group.names.map((n) => `\`${n}\``).join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
