import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MemoryRpc, MemorySessionState } from 'happy-session/ports';
import { PermissionGate } from 'happy-session/permissions';
import { isSdkError } from 'happy-session';
import { Redactor, secretValuesOf } from '../../packages/sdk/src/stream/redactor.js';
import { DEFAULT_SECRET_DETECTORS, entropyDetector } from 'happy-session/redaction';
import { memorySession } from '../helpers/memorySession.js';
import { generateEmbeddedSecrets, generateSecrets } from './secretCorpus.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('redaction in the writer', () => {
  it('redacts every supported format in text, arguments, results and titles of the stored stream', async () => {
    const secrets = generateSecrets();
    const embedded = generateEmbeddedSecrets();
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    for (const { secret } of secrets) {
      turn.text(`Loaded the key: ${secret} (from the vault)`);
      const call = turn.toolCall({
        toolName: 'bash',
        title: `Run curl -H "Authorization: Bearer ${secret}"`,
        description: `uses ${secret}`,
        args: { command: `deploy --token ${secret}`, env: { TOKEN: secret }, list: ['x', secret] },
      });
      call.scope().text(`result: ${JSON.stringify({ token: secret })}`);
      call.end({ error: `401 for ${secret}` });
    }
    for (const { text } of embedded) {
      turn.text(text);
      turn.toolCall({ toolName: 'bash', title: text, args: { command: text } }).end();
    }
    turn.end();
    await writer.flush();

    const stored = JSON.stringify(await reader.messages());
    for (const { secret } of secrets) {
      // The whole secret, and any line of a multi-line key, is gone.
      for (const piece of secret.split('\n').filter((l) => l.length > 20))
        expect(stored).not.toContain(piece);
    }
    for (const { secret, kept } of embedded) {
      expect(stored).not.toContain(secret);
      expect(stored).toContain(kept.replaceAll('"', '\\"'));
    }
    // Markers are not secrets: redacting the stored stream again changes nothing.
    expect(new Redactor().redactValue(stored)).toBe(stored);
    for (const kind of new Set([...secrets, ...embedded].map((s) => s.kind))) {
      expect(stored).toContain(`[redacted:${kind}]`);
    }
    // Per secret: text, title, description, three args, the result text, the end's error.
    const perKind = new Map<string, number>();
    for (const { kind } of secrets) perKind.set(kind, (perKind.get(kind) ?? 0) + 8);
    for (const { kind } of embedded) perKind.set(kind, (perKind.get(kind) ?? 0) + 3);
    expect(writer.redactions).toEqual(Object.fromEntries(perKind));
  });

  it('a gated call’s executor gets the real arguments; the request, the start and agentState show the redacted ones', async () => {
    const token = generateSecrets().find((s) => s.kind === 'github-token')!.secret;
    const { writer, reader } = memorySession();
    const state = new MemorySessionState();
    const gate = await PermissionGate.create({ writer, rpc: new MemoryRpc(), state });
    const turn = writer.turn();
    const call = turn.toolCall({
      toolName: 'bash',
      title: 'Push',
      args: { command: `git push https://x:${token}@example.com/r.git` },
    });
    const running = call.run((args) => args);
    await writer.flush();
    const request = (await reader.messages()).find((m) => m.type === 'permission-request');
    expect(request).toMatchObject({
      args: { command: 'git push https://x:[redacted:github-token]@example.com/r.git' },
    });
    const mirrored = JSON.stringify(state.agentState);
    expect(mirrored).toContain('[redacted:github-token]');
    expect(mirrored).not.toContain(token);

    gate.answer({ callId: call.callId, optionId: 'allow-once' });
    const result = await running;
    expect(result).toMatchObject({
      status: 'done',
      value: { command: `git push https://x:${token}@example.com/r.git` },
    });
    turn.end();
    await writer.flush();
    expect(JSON.stringify(await reader.messages())).not.toContain(token);
    gate.dispose();
  });

  it('an edited answer that leaves a redacted argument as shown gives the executor the real value', async () => {
    const token = generateSecrets().find((s) => s.kind === 'npm-token')!.secret;
    const { writer } = memorySession();
    const gate = await PermissionGate.create({ writer, rpc: new MemoryRpc() });
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'bash', args: { command: 'npm publish', token } });
    const running = call.run((args) => args);
    // The user edits the command; the token comes back as the request showed it.
    gate.answer({
      callId: call.callId,
      optionId: 'allow-once',
      updatedInput: { command: 'npm publish --dry-run', token: '[redacted:npm-token]' },
    });
    expect(await running).toMatchObject({
      status: 'done',
      value: { command: 'npm publish --dry-run', token },
    });
    gate.dispose();
  });

  it('opts out per message and per call; registered values are redacted under their kind', async () => {
    const { writer, reader } = memorySession();
    writer.registerSecrets(
      secretValuesOf({ DB_PASSWORD: 'hunter2-but-longer', PORT: '3000', HOME: '/home/me' }),
    );
    writer.registerSecrets([{ value: 'correct horse battery', kind: 'passphrase' }]);
    const key = `AKIA${'A'.repeat(16)}`;
    const turn = writer.turn();
    turn.text(`password hunter2-but-longer and correct horse battery on port 3000 in /home/me`);
    turn.text(`kept on purpose: ${key}`, { redact: false });
    turn.toolCall({ toolName: 'show', title: key, args: { key }, redact: false }).end();
    writer.append({ role: 'agent', type: 'service', text: key }, { redact: false });
    turn.end();
    await writer.flush();
    const texts = (await reader.messages()).map((m) => JSON.stringify(m));
    expect(texts[1]).toContain(
      'password [redacted:env:DB_PASSWORD] and [redacted:passphrase] on port 3000 in /home/me',
    );
    // The kept text, the call's start, the service message (the call's end carries no key).
    for (const i of [2, 3, 5]) expect(texts[i]).toContain(key);
    expect(writer.redactions).toEqual({ 'env:DB_PASSWORD': 1, passphrase: 1 });
  });

  it('refuses to register a value too short to be a secret', () => {
    const { writer } = memorySession();
    let thrown: unknown;
    try {
      writer.registerSecrets(['abc']);
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'stream.secret_too_short')).toBe(true);
  });

  it('redact: false stores secrets as given, and the counts stay empty', async () => {
    const token = `ghp_${'a1'.repeat(18)}`;
    const { writer, reader } = memorySession({ redact: false });
    writer.turn().text(token);
    await writer.flush();
    expect(JSON.stringify(await reader.messages())).toContain(token);
    expect(writer.redactions).toEqual({});
  });

  it('the table is extensible: a user detector with a capture group, and the entropy detector when asked for', async () => {
    const { writer, reader } = memorySession({
      redact: {
        detectors: [
          ...DEFAULT_SECRET_DETECTORS,
          { kind: 'acme-key', pattern: /acme_key=(\w{12,})/, group: 1 },
          entropyDetector(),
        ],
      },
    });
    const random = 'q8Zr2LmX0vBn7TgW4kYp1HsD9cJf';
    writer.turn().text(`acme_key=abcdefabcdef12 and a random secret ${random}`);
    await writer.flush();
    const [, text] = await reader.messages();
    expect(text).toMatchObject({
      text: 'acme_key=[redacted:acme-key] and a random secret [redacted:high-entropy]',
    });
  });

  it('a detector with hints runs only on strings holding one of them, whatever their case', () => {
    const scanned: string[] = [];
    const redactor = new Redactor({
      detectors: [
        // Six digits are a secret only next to the word PIN: the hint says where to look.
        { kind: 'pin', pattern: /\b\d{6}\b/, hints: ['pin'] },
        {
          kind: 'spy',
          find: (text) => {
            scanned.push(text);
            return [];
          },
        },
      ],
    });
    expect(redactor.redactValue('your PIN is 123456')).toBe('your PIN is [redacted:pin]');
    expect(redactor.redactValue('order 123456 shipped')).toBe('order 123456 shipped');
    // A `find` detector has no hints: it sees every string.
    expect(scanned).toEqual(['your PIN is 123456', 'order 123456 shipped']);
  });
});

describe('passwords in connection strings against placeholders', () => {
  const redactor = new Redactor();
  // Real passwords that start with a character placeholders start with (a random password drew
  // `%fNCf7MSBfwmfRfzm6` once and went through when the first character alone decided).
  const real = ['%fNCf7MSBfwmfRfzm6', '*Xq9!v2Lm4kT', '$up3rS3cr3t!x', '<Rk8vQ2m', '{Zr7pW1', '[Gh5tY3x'];
  // Placeholders: what code and docs write where a real value would go.
  const placeholders = [
    '${DB_PASSWORD}',
    '$PGPASSWORD',
    '<password>',
    '{{secret}}',
    '{pw}',
    '%s',
    '%(pw)s',
    '%DB_PASS%',
    '***',
    'password',
    'xxxx',
  ];

  it.each(real)('redacts the real password %s in a URL and in a Key=Value string', (password) => {
    expect(redactor.redactValue(`postgres://deploy:${password}@db.internal:5432/app`)).toBe(
      'postgres://deploy:[redacted:connection-string-password]@db.internal:5432/app',
    );
    expect(
      redactor.redactValue(`Server=tcp:sql.example.net;User ID=svc;Password=${password};Encrypt=true`),
    ).toBe(
      'Server=tcp:sql.example.net;User ID=svc;Password=[redacted:connection-string-password];Encrypt=true',
    );
  });

  it.each(placeholders)('leaves the placeholder %s as it is', (placeholder) => {
    const url = `postgres://deploy:${placeholder}@db.internal:5432/app`;
    const ado = `Server=tcp:sql.example.net;User ID=svc;Password=${placeholder};Encrypt=true`;
    expect(redactor.redactValue(url)).toBe(url);
    expect(redactor.redactValue(ado)).toBe(ado);
  });
});

describe('no false positives under the default detectors', () => {
  it('finds nothing in this repository’s source code and docs, its git log, and ffprobe and npm output', () => {
    const redactor = new Redactor();
    const corpus: Array<{ name: string; text: string }> = [];
    const dirs = [
      'packages/sdk/src',
      'packages/relay/src',
      'packages/cli/src',
      'test',
      'docs',
      'examples',
      'bench',
    ];
    // Other people's code too: a library's sources and its build output.
    const libraries = [
      'node_modules/rxjs/src',
      'node_modules/commander/lib',
      'node_modules/socket.io-client/build/esm',
    ];
    for (const dir of [...dirs, ...libraries]) {
      for (const file of walk(join(ROOT, dir))) {
        // secretCorpus.ts builds secrets on purpose (from parts, but still).
        if (/\.(ts|md|json|js|mjs|cjs|sh|html|css)$/.test(file) && !file.includes('secretCorpus')) {
          corpus.push({ name: file, text: readFileSync(file, 'utf8') });
        }
      }
    }
    corpus.push({
      name: 'git log',
      text: execFileSync('git', ['log', '--stat', '-n', '300'], { cwd: ROOT, encoding: 'utf8' }),
    });
    corpus.push({
      name: 'ffmpeg -buildconf',
      text: execFileSync('ffmpeg', ['-hide_banner', '-buildconf'], { encoding: 'utf8' }),
    });
    corpus.push({
      name: 'npm ls',
      text: execFileSync('npm', ['ls', '--all'], {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      }),
    });
    expect(corpus.reduce((n, c) => n + c.text.length, 0)).toBeGreaterThan(2_500_000);
    const hits = corpus.flatMap(({ name, text }) => {
      const redacted = redactor.redactValue(text);
      if (redacted === text) return [];
      const at = [...redacted.matchAll(/\[redacted:[^\]]+\]/g)].map((m) =>
        redacted.slice(Math.max(0, m.index - 60), m.index + 40),
      );
      return [`${name}: ${at.join(' | ')}`];
    });
    expect(hits).toEqual([]);
  });
});

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
