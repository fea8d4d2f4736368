import sharp from 'sharp';
import type { PlanEntry, Turn } from 'happy-session';
import type { SessionWriter } from 'happy-session';

/**
 * The demo's agent: one turn that searches, asks permission for a shell command and runs it only
 * if allowed, delegates to a subagent that runs its own tool call (two levels of nesting), runs a
 * build step, and reports. No LLM: the point is the stream. The writer must carry a permission
 * gate (`PermissionGate.create({ writer, … })`). When the turn is aborted while the permission
 * request waits, the turn ends `cancelled`. It keeps a plan that it ticks off as it goes
 * (`turn.plan()`), and writes its report as a model would, a few characters at a time
 * (`turn.textStream()`), which the stream stores as whole paragraphs.
 * With `ask`, it ends by asking the person a question (the writer then needs a question desk, as
 * `connect()` installs).
 */
export async function runExampleAgent(
  writer: SessionWriter,
  prompt: string,
  options: { readonly ask?: boolean } = {},
): Promise<Turn> {
  const turn = writer.turn();
  const plan = demoPlan(turn);
  turn.thinking(`The user asked: "${prompt}". Search first, then delegate the auth review.`);
  turn.text("I'll look for TODOs, then have a subagent review the auth code.");

  const grep = turn.toolCall({
    toolName: 'grep',
    title: 'Search for `TODO`',
    description: 'Searching for `TODO` in the project',
    args: { pattern: 'TODO' },
    kind: 'read',
  });
  grep.end();
  plan.next();

  // A risky call: it runs only once the user allows it (the writer needs a permission gate).
  const clean = turn.toolCall({
    toolName: 'bash',
    title: 'Run `rm -rf build`',
    description: 'Delete the stale build output',
    args: { command: 'rm -rf build' },
    kind: 'execute',
  });
  // The demo deletes nothing: the executor only says what it would have done.
  const cleaned = await clean.run(() => 'removed build/', { signal: turn.signal });
  if (cleaned.status !== 'done') {
    turn.text(`I left the build directory alone (${cleaned.status}).`);
    if (cleaned.status === 'cancelled') {
      turn.end('cancelled');
      await writer.flush();
      return turn;
    }
  }

  // Another risky call; the demo's user refuses it, so it never runs.
  const push = turn.toolCall({
    toolName: 'bash',
    title: 'Run `git push --force`',
    description: 'Overwrite the remote branch',
    args: { command: 'git push --force origin main' },
    kind: 'execute',
  });
  const pushed = await push.run(() => 'pushed', { signal: turn.signal });
  if (pushed.status !== 'done') turn.text(`Not pushing (${pushed.status}).`);
  plan.next();

  const task = turn.toolCall({
    toolName: 'task',
    title: 'Review auth code',
    description: 'A subagent reads src/auth',
    args: { prompt: 'Review src/auth for unsafe token handling' },
    agentTitle: 'Auth review',
  });
  const sub = task.scope();
  sub.text('Reading src/auth/...');
  const read = sub.toolCall({
    toolName: 'read',
    title: 'Read `src/auth/token.ts`',
    args: { path: 'src/auth/token.ts' },
    kind: 'read',
  });
  read.end();
  sub.text('Token comparison is not constant-time.');
  task.end();
  plan.next();

  await turn.step('Build', async (build) => {
    await build.step('Compile', () => undefined);
    await build.step('Unit tests', () => undefined);
  });

  // A chart of the build, rendered here: dimensions and ThumbHash are computed, then it is
  // encrypted and uploaded before the photo message that references it is appended.
  await turn.attach(await buildChart(), { name: 'build-times.png' });
  plan.next();

  // The report, as a model streams it: small deltas, stored as two whole paragraphs.
  const report = turn.textStream();
  for (const delta of chunks(REPORT)) report.write(delta);
  await report.end();
  plan.next();
  if (options.ask) {
    // A question (docs/questions.md): the person picks, and the agent goes on with the answer.
    const answer = await turn.ask(
      [
        {
          id: 'fix',
          header: 'Next step',
          question: 'Fix the token comparison now?',
          options: ['Fix it', 'Later'],
        },
      ],
      { title: 'The auth review found an issue' },
    );
    turn.text(
      answer.status === 'answered'
        ? `You chose: ${answer.answers.fix?.options.join(', ') ?? 'nothing'}.`
        : `No answer (${answer.status}); leaving it for later.`,
    );
  }
  turn.end(turn.signal.aborted ? 'cancelled' : 'completed');
  await writer.flush();
  return turn;
}

const REPORT =
  'Found 3 TODOs; the auth review flagged one issue: the token comparison is not constant-time.\n\n' +
  'The build and its unit tests pass. I left the remote branch as it was.';

/** `text` cut into the 1 to 5 character pieces a model streams. */
function chunks(text: string): string[] {
  const out: string[] = [];
  for (let at = 0, k = 0; at < text.length; k++) {
    const size = 1 + ((k * 3) % 5);
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

/** The demo's plan, written whole each time a step is done; `next()` ticks off the current step. */
function demoPlan(turn: Turn): { next(): void } {
  const steps = [
    'Search for TODOs',
    'Clean up and push',
    'Review the auth code',
    'Build and chart it',
    'Report',
  ];
  let current = 0;
  const write = (): void => {
    const entries: PlanEntry[] = steps.map((content, i) => ({
      content,
      status: i < current ? 'completed' : i === current ? 'in_progress' : 'pending',
      ...(i === 2 ? { priority: 'high' as const } : {}),
    }));
    if (!turn.ended) turn.plan(entries);
  };
  write();
  return {
    next() {
      current += 1;
      write();
    },
  };
}

/** A small bar chart as a PNG, drawn with sharp from an SVG. */
async function buildChart(): Promise<Buffer> {
  const bars = [120, 80, 150, 60]
    .map(
      (h, i) =>
        `<rect x="${20 + i * 70}" y="${180 - h}" width="50" height="${h}" fill="#${['4f8', 'f84', '48f', 'fc4'][i]}"/>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="#fff"/>${bars}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
