import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { symlinkSync } from 'node:fs';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 2: a prefix grant covers a command's arguments, never an option the command
 * table marks as running code, writing a file, or changing the directory or configuration
 * (docs/permissions-policy.md, "The command table"); for a command not in the table, never an
 * option naming a path outside the workspace. One test per table row: real bash shows that each
 * hostile line really does what the row says (runs code: `MARK` appears; writes: the file
 * appears or changes), the gate asks for it under the grant, and the plain forms beside it are
 * still allowed and run (positive controls).
 */

let shell: ShellParser;
let ws: string;
let outside: string;
/** `http://127.0.0.1:<port>/remote.txt` of a server run for wget, which reads no `file:` URL. */
let served: string;
let server: ChildProcess | undefined;
/** Where `yarn` names Debian's `yarnpkg`. */
let shims: string;

/** What a hostile line does when bash runs it. */
type Effect = { readonly creates: string } | { readonly removes: string } | { readonly changes: string };
const RUNS: Effect = { creates: 'MARK' };
const WRITES: Effect = { creates: 'written.txt' };

interface Row {
  readonly row: string;
  readonly grants: readonly string[];
  readonly hostile: readonly (readonly [string, Effect])[];
  readonly positive: readonly string[];
  /** Lines the gate must ask for, not run here (another spelling, or a tool not installed). */
  readonly gateOnly?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Debian's yarnpkg runs under the node it is given, and finds its own modules in /usr/share/nodejs
 * (Debian's node looks there by itself; another node is told with NODE_PATH).
 */
const YARN_ENV = { PATH: 'SHIMS', NODE_PATH: '/usr/share/nodejs' };

function rows(): Row[] {
  const url = 'URL';
  return [
    {
      row: 'git log',
      grants: ['Bash(git log:*)'],
      hostile: [
        ['git log --output=written.txt -1', WRITES],
        ['git log -1 --output written.txt', WRITES],
        ['git log -p -1 --ext-diff', RUNS],
      ],
      positive: ['git log --oneline -1', 'git log -c -1', 'git log -1 -- written.txt'],
      gateOnly: [
        'git log --out=x -1',
        'git log --ext -p',
        'git log --textconv -p',
        'git log -1 "--output=x"',
      ],
      env: { GIT_EXTERNAL_DIFF: 'PROG' },
    },
    {
      row: 'git (global options and subcommands)',
      grants: ['Bash(git:*)'],
      hostile: [
        ["git -c alias.x='!touch MARK' x", RUNS],
        ['git -C sub init -q', { creates: 'sub/.git' }],
        ['git --exec-path=bin x', RUNS],
        ['git st', RUNS],
        ['git format-patch -q -o patches -1', { creates: 'patches' }],
      ],
      positive: ['git status --short', 'git log --oneline -1', 'git diff --stat', 'git --no-pager log -1'],
      gateOnly: [
        'git --config-env=core.pager=X log',
        'git -cx=y status',
        'git grep -O a',
        'git grep --open-files-in-pager=vi a',
        'git rebase -x "touch M" HEAD',
        'git rebase --exec="touch M" HEAD',
        'git clone --upload-pack=x a b',
        'git fetch --upload-pack x',
        'git push --receive-pack=x',
        'git archive -o x.tar HEAD',
        'git config core.pager less',
        'git bisect run ./x.sh',
        'git difftool -x x',
        'git submodule foreach x',
        'git --namespace status x',
        'git --bogus status',
        'git --git-dir=.git --work-tree=sub status',
      ],
    },
    {
      row: 'find',
      grants: ['Bash(find:*)'],
      hostile: [
        ['find . -maxdepth 1 -name a.txt -exec touch MARK \\;', RUNS],
        ['find . -maxdepth 1 -name a.txt -execdir touch MARK \\;', RUNS],
        ['find . -maxdepth 1 -name a.txt -ok touch MARK \\;', RUNS],
        ['find . -maxdepth 1 -name del.txt -delete', { removes: 'del.txt' }],
        ['find . -maxdepth 1 -name a.txt -fprintf written.txt %p', WRITES],
        ['find . -maxdepth 1 -name a.txt -fprint written.txt', WRITES],
        ['find . -maxdepth 1 -name a.txt -fprint0 written.txt', WRITES],
        ['find . -maxdepth 1 -name a.txt -fls written.txt', WRITES],
      ],
      positive: ['find . -name a.txt', 'find . -maxdepth 1 -type f -print', 'find src -newer a.txt'],
      gateOnly: ["find . '-exec' x \\;", 'find . -okdir x \\;', 'find -L . -delete'],
    },
    {
      row: 'sed',
      grants: ['Bash(sed:*)'],
      hostile: [
        ["sed 's/.*/touch MARK/e' a.txt", RUNS],
        ["sed -n '1e touch MARK' a.txt", RUNS],
        ["sed -n -e p -e '1e touch MARK' a.txt", RUNS],
        ["sed -n --expression='1e touch MARK' a.txt", RUNS],
        ["sed -n '/a/{e touch MARK\n}' a.txt", RUNS],
        ['sed -n -f script.sed a.txt', RUNS],
        ["sed -n 'w written.txt' a.txt", WRITES],
        ["sed 's/a/b/w written.txt' a.txt", WRITES],
        ["sed -i 's/a/b/' a.txt", { changes: 'a.txt' }],
        ["sed -ni 's/a/b/p' a.txt", { changes: 'a.txt' }],
        ["sed --in-place=.bak 's/a/b/' a.txt", { changes: 'a.txt' }],
        ["sed --in 's/a/b/' a.txt", { changes: 'a.txt' }],
      ],
      positive: [
        'sed -n 1p a.txt',
        "sed 's/a/b/g' a.txt",
        "sed -e 's/x/y/' -e p a.txt",
        "sed -n '/a/p' a.txt",
        "sed 's|/|x|' a.txt",
        "sed -n 's/[/]/x/p' a.txt",
      ],
      gateOnly: [
        "sed 's/[/]/x/e' a.txt",
        "sed '1!e x' a.txt",
        "sed '$W x' a.txt",
        'sed --expr=1e a.txt',
        'sed -s -i.bak p a.txt',
        "sed 's/a/b/3e' a.txt",
        "sed 'y/a/b/;e x' a.txt",
      ],
    },
    {
      row: 'tar',
      grants: ['Bash(tar:*)'],
      hostile: [
        ["tar -xf a.tar --to-command='touch MARK'", RUNS],
        ["tar -cf b.tar a.txt --checkpoint=1 --checkpoint-action=exec='touch MARK'", RUNS],
        ['tar -I ./prog.sh -tf a.tar', RUNS],
        ['tar --use-compress-program=./prog.sh -tf a.tar', RUNS],
        ['tar -cf written.txt a.txt', WRITES],
        ['tar cf written.txt a.txt', WRITES],
        ['tar -xf a.tar -C sub', { creates: 'sub/a.txt' }],
      ],
      positive: ['tar -tf a.tar', 'tar -tvf a.tar', 'tar tf a.tar', 'tar --list --file=a.tar'],
      gateOnly: [
        'tar --to-c=x -xf a.tar',
        'tar -tf host:a.tar',
        'tar -tf a.tar --rsh-command=x',
        'tar -tf a.tar -F x',
        'tar --info-script=x -tf a.tar',
        'tar -tvf a.tar -g snap',
        'tar --directory=/ -tf a.tar',
      ],
    },
    {
      row: 'rg',
      grants: ['Bash(rg:*)'],
      hostile: [
        ['rg --pre ./prog.sh a .', RUNS],
        ['rg --pre=./prog.sh a .', RUNS],
      ],
      positive: ['rg -n a a.txt', 'rg --files src', 'rg -e a -- a.txt'],
      gateOnly: ['rg --pre-glob "*.txt" --pre x a', 'rg --hostname-bin=x a', 'rg --pr=x a'],
    },
    {
      row: 'grep',
      grants: ['Bash(grep:*)'],
      hostile: [],
      positive: ['grep -rn e src', 'grep -e a -- a.txt', 'grep -c a a.txt'],
    },
    {
      row: 'npm',
      grants: ['Bash(npm:*)', 'Bash(npm run:*)'],
      hostile: [
        ['npm test --silent', { creates: 'TESTED' }],
        ['npm run build --silent', RUNS],
        ["npm exec --call='touch MARK'", RUNS],
      ],
      positive: ['npm ls --depth=0', 'npm config get loglevel'],
      gateOnly: [
        'npm --prefix sub ls',
        'npm t',
        'npm i',
        'npm ci',
        'npm x touch',
        'npm --script-shell=x ls',
        'npm --loglevel silent test',
      ],
    },
    {
      row: 'npm test (words passed to the script)',
      grants: ['Bash(npm test:*)'],
      hostile: [],
      positive: ['npm test --silent'],
      gateOnly: ['npm test -- --config=/etc/x.js', 'npm test -- -c ../x.js', 'npm test -- --reporter ~/x'],
    },
    {
      row: 'yarn (Debian yarnpkg 1.x)',
      grants: ['Bash(yarn:*)'],
      hostile: [
        ['yarn build', RUNS],
        ['yarn run build', RUNS],
        ['yarn -s run build', RUNS],
        ['yarn test', { creates: 'TESTED' }],
        ['yarn exec touch MARK', RUNS],
        ['yarn --cwd sub run build', RUNS],
      ],
      positive: ['yarn help', 'yarn config get loglevel', 'yarn licenses list'],
      gateOnly: ['yarn', 'yarn dlx x', 'yarn --cwd /x list', 'yarn --version'],
      env: YARN_ENV,
    },
    {
      // pnpm is not packaged by Debian (bookworm) and is not installed here: the gate alone is checked.
      row: 'pnpm (not installable from Debian: gate only)',
      grants: ['Bash(pnpm:*)', 'Bash(pnpm run:*)'],
      hostile: [],
      positive: [],
      gateOnly: ['pnpm test', 'pnpm build', 'pnpm run build', 'pnpm dlx x', 'pnpm -C sub ls', 'pnpm exec x'],
    },
    {
      row: 'xargs',
      grants: ['Bash(echo:*)', 'Bash(xargs:*)', 'Bash(xargs echo:*)'],
      hostile: [
        ['echo MARK | xargs touch', RUNS],
        ['echo MARK | xargs -I{} touch {}', RUNS],
        ['echo MARK | xargs -n1 touch', RUNS],
      ],
      positive: ['echo a | xargs echo', 'echo a | xargs echo -n'],
      gateOnly: ['echo a | xargs echo a | xargs -P2 sh -c x', 'echo a | xargs -a list rm'],
    },
    {
      row: 'make',
      grants: ['Bash(make:*)'],
      hostile: [
        ["make --eval='x:=$(shell touch MARK)'", RUNS],
        ['make -f other.mk', RUNS],
        ['make SHELL=./prog.sh', RUNS],
        ['make -C sub', RUNS],
      ],
      positive: ['make', 'make all', 'make -s all'],
      gateOnly: ['make --file=x', 'make --makef=x', 'make -Iinc', 'make --directory=/', 'make CC=x all'],
    },
    {
      row: 'curl',
      grants: ['Bash(curl:*)'],
      hostile: [
        [`curl -s -o written.txt ${url}`, WRITES],
        [`curl -s --output written.txt ${url}`, WRITES],
        [`curl -sO ${url}`, { creates: 'remote.txt' }],
        [`curl -s --output-dir sub -O ${url}`, { creates: 'sub/remote.txt' }],
        ['curl -s -K curl.cfg', WRITES],
      ],
      positive: [`curl -s ${url}`, `curl -s -o - ${url}`, `curl -sS --fail ${url}`],
      gateOnly: [
        `curl -s --output=written.txt ${url}`,
        'curl -s -D h.txt x',
        'curl -c jar x',
        'curl --trace t x',
        'curl --libcurl c x',
      ],
    },
    {
      row: 'wget',
      grants: ['Bash(wget:*)'],
      hostile: [
        ['wget -q -O written.txt SERVED', WRITES],
        ['wget -q --output-document=written.txt SERVED', WRITES],
        ['wget -qOwritten.txt SERVED', WRITES],
        ['wget -q --output-doc written.txt SERVED', WRITES],
        ['wget -q -P sub SERVED', { creates: 'sub/remote.txt' }],
        ['wget -o written.txt SERVED', WRITES],
        ['wget -q -e output_document=written.txt SERVED', WRITES],
        ['wget -q --config=wget.rc SERVED', WRITES],
      ],
      positive: [
        'wget -q -O - SERVED',
        'wget -qO- SERVED',
        'wget --version',
        'wget -q --spider SERVED',
        'wget -q SERVED',
      ],
      gateOnly: [
        'wget -a log u',
        'wget -P /tmp u',
        'wget --use-askpass=x u',
        'wget -qO/tmp/x u',
        'wget --post-file=OUTSIDE/secret u',
        'wget --body-file=~/.netrc --method=PUT u',
        'wget -i ~/.ssh/id_rsa',
        'wget --load-cookies ../c.txt u',
      ],
    },
    {
      row: 'interpreters and npx',
      grants: ['Bash(python3:*)', 'Bash(node:*)', 'Bash(perl:*)', 'Bash(npx:*)'],
      hostile: [
        ["python3 -c \"open('MARK', 'w')\"", RUNS],
        ["python3 -Bc \"open('MARK', 'w')\"", RUNS],
        ["node -e \"require('fs').writeFileSync('MARK', '')\"", RUNS],
        ["node --eval=\"require('fs').writeFileSync('MARK', '')\"", RUNS],
        ['perl -e \'open(F, ">MARK")\'', RUNS],
      ],
      positive: ['python3 --version', 'node --version', 'perl -v'],
      gateOnly: [
        'npx some-package',
        'python3 -m http.server',
        'node -r ./x.js y.js',
        'node --import=./x.mjs y.js',
        'perl -MPOSIX -e 1',
      ],
    },
    {
      row: 'sort',
      grants: ['Bash(sort:*)'],
      hostile: [
        ['sort -o written.txt a.txt', WRITES],
        ['sort --output=written.txt a.txt', WRITES],
        ['sort --out=written.txt a.txt', WRITES],
        ['sort -ro written.txt a.txt', WRITES],
      ],
      positive: ['sort a.txt', 'sort -r a.txt', 'sort -k1,1 -t, a.txt'],
      gateOnly: ['sort --compress-program=x a.txt', 'sort -T /tmp a.txt'],
    },
    {
      row: 'cp, mv, ln',
      grants: ['Bash(cp:*)'],
      hostile: [['cp -t sub a.txt', { creates: 'sub/a.txt' }]],
      positive: ['cp a.txt copy.txt'],
      gateOnly: ['cp --target-directory=/etc a.txt', 'cp --target=x a.txt'],
    },
    {
      row: 'ls, cat, head, tail',
      grants: ['Bash(ls:*)', 'Bash(cat:*)', 'Bash(head:*)', 'Bash(tail:*)'],
      hostile: [],
      positive: ['ls -la', 'cat a.txt', 'head -n1 a.txt', 'tail -1 a.txt', 'ls -la src | head -2'],
    },
    {
      row: 'a command not in the table',
      grants: ['Bash(./tool.sh:*)'],
      hostile: [
        ['./tool.sh --out=OUTSIDE/x', { creates: 'OUTSIDE/x' }],
        ['./tool.sh -o OUTSIDE/y', { creates: 'OUTSIDE/y' }],
        ['./tool.sh -oOUTSIDE/z', { creates: 'OUTSIDE/z' }],
        ['./tool.sh --out ../escape.txt', { creates: '../escape.txt' }],
      ],
      positive: ['./tool.sh --out=inside.txt', './tool.sh -o sub/inside.txt', './tool.sh -- -o'],
      gateOnly: ['./tool.sh --out=~/x', './tool.sh --out=file:///etc/x'],
    },
  ];
}

function place(text: string): string {
  return text
    .replaceAll('OUTSIDE', outside)
    .replaceAll('PROG', join(ws, 'prog.sh'))
    .replaceAll('SHIMS', `${shims}:${process.env.PATH ?? ''}`)
    .replaceAll('URL', `file://${ws}/src/remote.txt`)
    .replaceAll('SERVED', served);
}

function setUp(): void {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
  rmSync(join(ws, '..', 'escape.txt'), { force: true });
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'sub'));
  mkdirSync(join(ws, 'bin'));
  mkdirSync(outside);
  const file = (name: string, text: string, exec = false): void => {
    writeFileSync(join(ws, name), text);
    if (exec) chmodSync(join(ws, name), 0o755);
  };
  file('a.txt', 'a\nb\n');
  file('del.txt', 'x');
  file('src/remote.txt', 'remote\n');
  file('prog.sh', `#!/bin/sh\ntouch '${ws}/MARK'\nif [ -f "$1" ]; then cat "$1"; else cat; fi\n`, true);
  file('bin/git-x', `#!/bin/sh\ntouch '${ws}/MARK'\n`, true);
  file(
    'tool.sh',
    [
      '#!/bin/sh',
      'while [ $# -gt 0 ]; do',
      '  case "$1" in',
      '    --) break ;;',
      '    --out=*) o="${1#--out=}" ;;',
      '    -o|--out) o="$2"; [ $# -gt 1 ] && shift ;;',
      '    -o*) o="${1#-o}" ;;',
      '  esac',
      '  shift',
      'done',
      'if [ -n "$o" ]; then echo x > "$o"; fi',
      '',
    ].join('\n'),
    true,
  );
  file('script.sed', '1e touch MARK\n');
  file('Makefile', 'all:\n\t@echo ok\n');
  file('other.mk', 'all:\n\t@touch MARK\n');
  file('sub/Makefile', 'all:\n\t@touch ../MARK\n');
  file('wget.rc', 'output_document = written.txt\n');
  file(
    'sub/package.json',
    JSON.stringify({ name: 's', version: '1.0.0', scripts: { build: 'touch ../MARK' } }),
  );
  file('curl.cfg', `output = "written.txt"\nurl = "file://${ws}/src/remote.txt"\n`);
  file(
    'package.json',
    JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'touch TESTED', build: 'touch MARK' } }),
  );
  const run = (line: string): void => {
    spawnSync('bash', ['-c', line], { cwd: ws, stdio: 'ignore' });
  };
  run(
    'tar -cf a.tar a.txt && git init -q && git add a.txt && git -c user.email=a@b -c user.name=a commit -qm one',
  );
  run(
    "echo c > b.txt && git add b.txt && git -c user.email=a@b -c user.name=a commit -qam two && git config alias.st '!touch MARK'",
  );
}

function bashIn(line: string, env: Readonly<Record<string, string>> = {}) {
  const fixed = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, place(v)]));
  return spawnSync('bash', ['-c', place(line)], {
    cwd: ws,
    input: 'y\n',
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...fixed, npm_config_update_notifier: 'false', GIT_PAGER: 'cat' },
  });
}

function happened(effect: Effect): boolean {
  if ('creates' in effect) return existsSync(resolve(ws, place(effect.creates)));
  if ('removes' in effect) return !existsSync(join(ws, effect.removes));
  return readFileSync(join(ws, effect.changes), 'utf8') !== 'a\nb\n';
}

/** Serves `dir` over HTTP from a child process (bash runs synchronously here); the port it took. */
async function serve(dir: string): Promise<number> {
  const script = [
    'import functools, http.server, sys',
    'class Quiet(http.server.SimpleHTTPRequestHandler):',
    '    def log_message(self, *args): pass',
    'handler = functools.partial(Quiet, directory=sys.argv[1])',
    "httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)",
    'print(httpd.server_address[1], flush=True)',
    'httpd.serve_forever()',
  ].join('\n');
  server = spawn('python3', ['-c', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(server.stdout!, 'data')) as [Buffer];
  return Number(chunk.toString('utf8').trim());
}

beforeAll(async () => {
  shell = await loadShellParser();
  const base = mkdtempSync(join(tmpdir(), 'option-table-'));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  shims = join(base, 'shims');
  mkdirSync(shims);
  symlinkSync('/usr/bin/yarnpkg', join(shims, 'yarn'));
  const www = join(base, 'www');
  mkdirSync(www);
  writeFileSync(join(www, 'remote.txt'), 'remote\n');
  served = `http://127.0.0.1:${await serve(www)}/remote.txt`;
});
afterAll(() => {
  server?.kill();
  rmSync(join(ws, '..'), { recursive: true, force: true });
});

describe.each(rows().map((r) => [r.row, r] as const))('the %s row', (_name, row) => {
  beforeEach(setUp);
  const verdict = (line: string) =>
    judge(shell, { allow: [...row.grants], workspaceRoot: ws }, bash(place(line))).verdict;

  it.each(row.hostile.map(([line, effect]) => [line, effect] as const))(
    '%j does what the row says with real bash, and the grant does not cover it',
    (line, effect) => {
      expect(happened(effect), 'before').toBe(false);
      bashIn(line, row.env);
      expect(happened(effect), 'after').toBe(true);
      expect(verdict(line)).toBe('ask');
    },
  );

  if (row.gateOnly?.length) {
    it.each(row.gateOnly)('%j is not covered by the grant', (line) => {
      expect(verdict(line)).toBe('ask');
    });
  }

  if (row.positive.length) {
    it.each(row.positive)('%j is allowed by the grant and runs (positive control)', (line) => {
      expect(verdict(line)).toBe('allow');
      const result = bashIn(line, row.env);
      expect(result.status, result.stderr).toBe(0);
      expect(existsSync(join(ws, 'MARK'))).toBe(false);
    });
  }
});
