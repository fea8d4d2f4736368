import { describe, expect, it } from 'vitest';
import { renderWatchScreen } from '../../packages/cli/src/watch/watchScreen.js';
import type { WatchScreenState } from '../../packages/cli/src/watch/watchScreen.js';
import { fold } from 'happy-session';
import type { SessionMessage } from 'happy-session';

const texts = (n: number): SessionMessage[] => [
  { id: 's', time: 1, role: 'agent', type: 'turn-start', turn: 't' },
  ...Array.from({ length: n }, (_, i): SessionMessage => ({
    id: `m${i}`,
    time: 2 + i,
    role: 'agent',
    type: 'text',
    turn: 't',
    text: `line ${i + 1} ${'x'.repeat(200)}`,
  })),
];

const state = (messages: SessionMessage[]): WatchScreenState => ({
  sessionId: 'sess',
  title: 'Title',
  serverUrl: 'http://127.0.0.1:1',
  fold: fold(messages),
  activity: { active: false, thinking: false },
  unreadable: 2,
  prompt: undefined,
  waiting: 0,
  status: [],
});

describe('the watch screen', () => {
  it('keeps the newest transcript lines when the transcript does not fit, and never wraps', () => {
    const lines = renderWatchScreen(state(texts(50)), { rows: 12, columns: 40 });
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe('happy-session watch · Title · sess');
    expect(lines[1]).toBe('http://127.0.0.1:1 · inactive · 2 unrea…');
    expect(lines[3]).toBe('… 45 earlier lines');
    expect(lines[9]).toMatch(/^ {2}agent: line 50 x+…$/);
    expect(lines.at(-1)).toBe('Keys: q quit');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('shows everything when there is no size (not a terminal)', () => {
    const lines = renderWatchScreen(state(texts(50)));
    expect(lines).toHaveLength(3 + 51 + 2);
  });

  it("shows the agent's current plan as a checklist at the top, above the transcript", () => {
    const plan = (id: string, statuses: Array<'pending' | 'in_progress' | 'completed'>): SessionMessage => ({
      id,
      time: 100,
      role: 'agent',
      type: 'plan',
      turn: 't',
      entries: [
        { content: 'Read the test', status: statuses[0]!, priority: 'high' },
        { content: 'Fix the parser', status: statuses[1]! },
        { content: 'Run the suite', status: statuses[2]! },
      ],
    });
    const messages = [
      ...texts(30),
      plan('p1', ['in_progress', 'pending', 'pending']),
      plan('p2', ['completed', 'in_progress', 'pending']),
    ];
    const lines = renderWatchScreen(state(messages), { rows: 16, columns: 60 });
    expect(lines.slice(2, 8)).toEqual([
      '─'.repeat(40),
      'Plan · 1 of 3 done',
      '  [x] Read the test (high)',
      '  [>] Fix the parser',
      '  [ ] Run the suite',
      '─'.repeat(40),
    ]);
    expect(lines[8]).toMatch(/^… \d+ earlier lines$/);
    expect(lines).toContain('  plan: 1 of 3 done · now: Fix the parser');
  });
  it("shows the prompt's preview under it: exit status, the run-again note, files with sizes, at most 14 lines", () => {
    const files = Array.from({ length: 30 }, (_, i) => ({
      path: `gen/f${i}.txt`,
      change: 'created' as const,
      size: 10 + i,
    }));
    const prompt: Extract<SessionMessage, { type: 'permission-request' }> = {
      id: 'r1',
      time: 5,
      role: 'agent',
      type: 'permission-request',
      turn: 't',
      callId: 'c1',
      toolName: 'Bash',
      title: 'Run `make`',
      options: [{ id: 'allow-once', label: 'Allow once', kind: 'allow-once' }],
      preview: {
        files,
        network: ['example.com:443'],
        processesLeft: 0,
        exitCode: 0,
        outputTail: 'built\n',
        applicable: false,
        reason: 'it tried the network (example.com:443): on allow it runs again, for real',
      },
    };
    const lines = renderWatchScreen({ ...state(texts(1)), prompt });
    const at = lines.indexOf('Permission requested: Bash — Run `make`');
    expect(lines.slice(at + 1, at + 6)).toEqual([
      '  Preview (ran on a copy of the workspace, no network): exit 0',
      '  Outside the workspace: it tried the network (example.com:443): on allow it runs again, for real.',
      '    created gen/f0.txt (10 B)',
      '    created gen/f1.txt (11 B)',
      '    created gen/f2.txt (12 B)',
    ]);
    expect(lines[at + 14]).toMatch(/^ {2}… \d+ more lines$/);
    expect(lines[at + 15]).toBe('  1) Allow once');
  });
});
