import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../packages/cli/src/commands/demo.js';
import type { SessionMessage } from 'happy-session';
import { ScriptedTerminal, cli, relayHome, spawnCli } from './helpers.js';

describe('happy-session demo', () => {
  it('runs the example agent over a relay, gated, and prints the session id and the decrypted transcript', async () => {
    const lines: string[] = [];
    const code = await demoCommand({}, (l) => lines.push(l));
    const out = lines.join('\n');
    expect(code).toBe(0);
    expect(out).toMatch(/^session [a-z0-9]{20,} on an in-process relay at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(out).toMatch(/^\d+ encrypted records, read back and decrypted on the user's side:$/m);
    expect(out).toContain('user: Find TODOs and review the auth code');
    expect(out).toMatch(/^turn 1 \(completed\)$/m);
    // The scripted user allowed the gated call once; only then did it run.
    expect(out).toMatch(/^ {2}✓ bash: Run `rm -rf build`$/m);
    // The demo's question, answered by the scripted user (docs/questions.md).
    expect(out).toMatch(
      /^ {2}agent asked: The auth review found an issue\n {2}question answered: Fix it\n {2}agent: You chose: Fix it\.$/m,
    );
    expect(out).toMatch(
      /^ {4}permission: Allow once \/ Allow for session \/ Deny \/ Always deny → Allow once \(allow-once\)$/m,
    );
    expect(out).toMatch(/^ {2}✓ task: Review auth code$/m);
    expect(out).toMatch(/^ {4}subagent Auth review:$/m);
    expect(out).toMatch(/^ {6}✓ read: Read `src\/auth\/token.ts`$/m);
    expect(out).toMatch(/^ {4}✓ step: Compile$/m);
    // The scripted user denied the force push: it never ran.
    expect(out).toMatch(/^ {2}⊗ bash: Run `git push --force` — Denied by the user\. \(denied\)$/m);
    expect(out).toMatch(/→ Deny \(reject-once\)$/m);
    // The photo, with its dimensions and ThumbHash.
    expect(out).toMatch(
      /^ {2}agent photo 320x200, thumbhash [A-Za-z0-9+/=]{20,} \(sessions\/[a-z0-9]+\/attachments\/.+\.enc\)$/m,
    );
    // The relay stops with the demo: a viewer link would be dead at once, so there is none.
    expect(out).not.toContain('viewer');
  });

  it('--keep keeps the relay and its viewer up until Ctrl-C, and prints the link only then', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    let viewer: (url: string) => void;
    const shown = new Promise<string>((resolve) => (viewer = resolve));
    const running = demoCommand(
      { keep: true },
      (l) => {
        lines.push(l);
        const link = /^viewer: (http:\/\/\S+)$/.exec(l)?.[1];
        if (link) viewer(link);
      },
      { signal: controller.signal },
    );
    const link = await shown;
    // A one-time link: the secret itself is never printed.
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#ticket=[\w.-]+&session=[a-z0-9]+$/);
    expect(link).not.toContain('secret=');
    expect(lines.indexOf(`viewer: ${link}`)).toBeGreaterThan(lines.findIndex((l) => l.startsWith('turn 1')));
    const page = await fetch(new URL('/', link));
    expect(page.status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
    await expect(fetch(new URL('/', link))).rejects.toThrow();
  });

  it('--server runs on that server with the keys connect() finds, and leaves the session there', async () => {
    const env = await relayHome();
    try {
      const lines: string[] = [];
      const code = await demoCommand({ server: env.relay.url }, (l) => lines.push(l), {
        env: { HAPPY_HOME_DIR: env.home },
      });
      expect(code).toBe(0);
      const out = lines.join('\n');
      const id = new RegExp(`^session ([a-z0-9]+) on ${env.relay.url.replace(/[.:/]/g, '\\$&')}$`, 'm').exec(
        out,
      )?.[1];
      expect(id).toBeDefined();
      expect(out).toMatch(/^turn 1 \(completed\)$/m);
      expect(out).not.toContain('viewer');
      const listed = await cli(['sessions', '--json', '--server', env.relay.url], {
        env: { HAPPY_HOME_DIR: env.home },
      });
      expect(JSON.parse(listed.out)).toMatchObject([{ id, title: 'happy-session demo' }]);
    } finally {
      await env.close();
    }
  });

  it('--json prints one decrypted v2 message per line: the prompt, the turn, the request and its answer', async () => {
    const lines: string[] = [];
    expect(await demoCommand({ json: true }, (l) => lines.push(l))).toBe(0);
    const messages = lines.map((l) => JSON.parse(l) as SessionMessage);
    expect(messages[0]).toMatchObject({
      role: 'user',
      type: 'text',
      text: 'Find TODOs and review the auth code',
    });
    // The agent's mark that it took the prompt (docs/recovery.md, "Prompts"), then its turn.
    expect(messages[1]).toMatchObject({ type: 'prompt-taken', promptId: messages[0]!.id });
    expect(messages[2]?.type).toBe('turn-start');
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
    const request = messages.find((m) => m.type === 'permission-request');
    expect(request).toMatchObject({ role: 'agent', toolName: 'bash', args: { command: 'rm -rf build' } });
    const responses = messages.filter(
      (m) => m.type === 'permission-response' && m.callId === request?.callId,
    );
    expect(responses.length).toBeGreaterThanOrEqual(1);
    for (const r of responses) expect(r).toMatchObject({ role: 'user', optionId: 'allow-once' });
    const order = (type: string) =>
      messages.findIndex((m) => m.type === type && 'callId' in m && m.callId === request?.callId);
    expect(order('permission-request')).toBeLessThan(order('permission-response'));
    expect(order('permission-response')).toBeLessThan(order('tool-call-end'));
    // It keeps a plan, ticked off step by step, and streams its report as two whole paragraphs.
    const plans = messages.flatMap((m) => (m.type === 'plan' ? [m.entries.map((e) => e.status)] : []));
    expect(plans[0]).toEqual(['in_progress', 'pending', 'pending', 'pending', 'pending']);
    expect(plans.at(-1)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    expect(plans).toHaveLength(6);
    const texts = messages.flatMap((m) =>
      m.type === 'text' && m.role === 'agent' && !m.parentId ? [m.text] : [],
    );
    const report = texts.findIndex((t) => t.startsWith('Found 3 TODOs'));
    expect(texts.slice(report, report + 2)).toEqual([
      'Found 3 TODOs; the auth review flagged one issue: the token comparison is not constant-time.\n\n',
      'The build and its unit tests pass. I left the remote branch as it was.',
    ]);
  });

  it('runs as `happy-session demo` and the process exits 0 by itself (relay and sockets closed)', async () => {
    const demo = spawnCli(['demo']);
    expect(await demo.exited).toBe(0);
    expect(demo.out()).toContain('turn 1 (completed)');
    expect(demo.err()).toBe('');
  });
});

describe('happy-session demo --interactive', () => {
  function interactive(signal?: AbortSignal) {
    const terminal = new ScriptedTerminal();
    const lines: string[] = [];
    let prompts = 0;
    let waiting: { count: number; resolve: () => void } | undefined;
    /** Resolves once the keyboard has been asked `count` times. */
    const askedTimes = (count: number) =>
      new Promise<void>((resolve) => {
        if (prompts >= count) resolve();
        else waiting = { count, resolve };
      });
    const done = demoCommand(
      { interactive: true },
      (l) => {
        lines.push(l);
        if (!l.startsWith('Press 1-4')) return;
        prompts++;
        if (waiting && prompts >= waiting.count) waiting.resolve();
      },
      { terminal, ...(signal ? { signal } : {}) },
    );
    return { terminal, lines, asked: askedTimes(1), askedTimes, done };
  }

  it('asks the keyboard; 3 denies, the call never runs, and the agent goes on', async () => {
    const demo = interactive();
    await demo.asked;
    expect(demo.lines).toContain('Permission requested: bash — Run `rm -rf build`');
    expect(demo.lines).toContain('  1) Allow once   2) Allow for session   3) Deny   4) Always deny');
    demo.terminal.type('3');
    await demo.askedTimes(2);
    expect(demo.lines).toContain('Permission requested: bash — Run `git push --force`');
    demo.terminal.type('3');
    expect(await demo.done).toBe(0);
    const out = demo.lines.join('\n');
    expect(out).toContain('→ Deny');
    expect(out).toMatch(/^ {2}⊗ bash: Run `rm -rf build` — Denied by the user\. \(denied\)$/m);
    expect(out).toMatch(/→ Deny \(reject-once\)$/m);
    expect(out).toContain('  agent: I left the build directory alone (denied).');
    expect(out).toMatch(/^turn 1 \(completed\)$/m);
  });

  it('Ctrl-C at the prompt cancels the request and the turn, prints the transcript and returns 130', async () => {
    const demo = interactive();
    await demo.asked;
    demo.terminal.type('\x03');
    expect(await demo.done).toBe(130);
    const out = demo.lines.join('\n');
    expect(out).toMatch(/^turn 1 \(cancelled\)$/m);
    expect(out).toMatch(/^ {2}⊘ bash: Run `rm -rf build` — cancelled$/m);
    expect(out).toMatch(/→ not answered$/m);
  });

  it('SIGINT (the abort signal) does the same', async () => {
    const controller = new AbortController();
    const demo = interactive(controller.signal);
    await demo.asked;
    controller.abort();
    expect(await demo.done).toBe(130);
    expect(demo.lines.join('\n')).toMatch(/^turn 1 \(cancelled\)$/m);
  });
});
