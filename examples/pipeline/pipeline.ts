// A build → test → publish script that streams its progress to Happy as nested steps.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Scope, TurnEndStatus } from 'happy-session';
import type { Session } from 'happy-session/node';

const run = promisify(execFile);

/** The pipeline's steps, in the order they start; `failAt` names one of them. */
export const STEPS = [
  'deploy',
  'build',
  'compile',
  'lint',
  'test',
  'unit',
  'integration',
  'publish',
] as const;
export type StepName = (typeof STEPS)[number];

export interface PipelineOptions {
  /** Where the build writes its files. */
  readonly workDir: string;
  /** Make this step throw, to see how a failure shows up in the app. */
  readonly failAt?: StepName;
}

export interface PipelineResult {
  readonly turnId: string;
  readonly status: TurnEndStatus;
  /** The published artifact, when the pipeline got that far. */
  readonly artifact?: string;
}

const APP_SOURCE = `export function add(a, b) {\n  return a + b;\n}\n`;

/**
 * Runs deploy → (build → compile, lint), (test → unit, integration), publish as one turn. Each
 * step is a tool call; a step that throws ends itself with the error and every step around it
 * with `step "<title>" failed: <error>`, and later steps never start.
 */
export async function runPipeline(session: Session, options: PipelineOptions): Promise<PipelineResult> {
  const { workDir, failAt } = options;
  const appFile = join(workDir, 'dist', 'app.mjs');
  const appUrl = pathToFileURL(appFile).href;

  // Every step goes through here, so that `failAt` can break any one of them.
  const step = <T>(scope: Scope, title: StepName, fn: (inner: Scope) => Promise<T>): Promise<T> =>
    scope.step(title, async (inner) => {
      if (title === failAt) throw new Error(`${title} failed on purpose (failAt)`);
      return fn(inner);
    });

  const turn = session.turn();
  turn.text('Deploying `app`: build, test, publish.');
  try {
    const artifact = await step(turn, 'deploy', async (deploy) => {
      await step(deploy, 'build', async (build) => {
        await step(build, 'compile', async (s) => {
          const { stdout: version } = await run(process.execPath, ['--version']);
          s.text(`Compiling with Node ${version.trim()}…`);
          await mkdir(join(workDir, 'dist'), { recursive: true });
          await writeFile(appFile, APP_SOURCE);
          await run(process.execPath, ['--check', appFile]);
          s.text('Wrote `dist/app.mjs`; syntax OK.');
        });
        await step(build, 'lint', async (s) => {
          const source = await readFile(appFile, 'utf8');
          const problems = source.split('\n').filter((line) => line.includes('console.log')).length;
          s.text(`${problems} problems in ${source.split('\n').length - 1} lines.`);
        });
      });
      await step(deploy, 'test', async (test) => {
        await step(test, 'unit', async (s) => {
          const { add } = (await import(appUrl)) as { add: (a: number, b: number) => number };
          if (add(2, 3) !== 5) throw new Error(`add(2, 3) returned ${add(2, 3)}`);
          s.text('1 passed: `add(2, 3) === 5`.');
        });
        await step(test, 'integration', async (s) => {
          const script = `import('${appUrl}').then(({ add }) => console.log(add(40, 2)))`;
          const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
          if (stdout.trim() !== '42') throw new Error(`expected 42, the app printed ${stdout.trim()}`);
          s.text('1 passed: the app runs in a fresh Node process.');
        });
      });
      return step(deploy, 'publish', async (s) => {
        const bytes = await readFile(appFile);
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const manifest = join(workDir, 'release.json');
        await writeFile(manifest, JSON.stringify({ file: 'dist/app.mjs', sha256 }, null, 2));
        s.text(`Published \`dist/app.mjs\` (sha256 ${sha256.slice(0, 12)}…).`);
        return manifest;
      });
    });
    turn.text('Deployed.');
    turn.end('completed');
    return { turnId: turn.id, status: 'completed', artifact };
  } catch (error) {
    turn.text(`Deploy stopped: ${error instanceof Error ? error.message : String(error)}`);
    turn.end('failed');
    return { turnId: turn.id, status: 'failed' };
  } finally {
    await session.writer.flush();
  }
}
