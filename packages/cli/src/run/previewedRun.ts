import type { Writable } from 'node:stream';
import type { PermissionDecision } from 'happy-session';
import type { PermissionGateOptions } from 'happy-session/permissions';
import { previewCommand } from 'happy-session/sandbox';
import type { Print } from '../output.js';

/** The preview an allow carries, to land. */
type PreviewedChange = NonNullable<PermissionDecision['previewed']>;

/**
 * The gate's previewer of `run --ask --preview` (docs/cli.md, "run"): while the outermost step is
 * asked about (`armed`), its command runs first on a copy of the working directory, with no
 * network; nested steps are asked about without a preview.
 */
export class StepPreviewer {
  armed = false;

  constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  readonly preview: NonNullable<PermissionGateOptions['preview']> = async ({ args, signal }) => {
    if (!this.armed || typeof args.command !== 'string') return undefined;
    return previewCommand({ workspaceRoot: this.cwd, command: args.command, env: this.env, signal });
  };
}

/** What became of an allowed, previewed step. */
export type LandedPreview =
  | { readonly kind: 'applied'; readonly exitCode: number | null }
  | { readonly kind: 'run' }
  | { readonly kind: 'deny' | 'cancelled' };

/** What {@link landPreview} works with. */
export interface LandPreviewContext {
  /** Notes in the step (service lines). */
  readonly note: (text: string) => void;
  readonly printError: Print;
  readonly stdout: Writable;
  /** The step's output log. */
  readonly onOutput: (text: string) => void;
  /** Asks again about the step; resolves with the fresh preview on an allow, if one was made. */
  readonly askAgain: () => Promise<{ outcome: 'allow' | 'deny' | 'cancelled'; previewed?: PreviewedChange }>;
}

/**
 * On an allow of a previewed step: lands exactly the previewed change (`applied`, with the
 * preview's exit status and its output echoed); files changed since the preview ask again with a
 * fresh one; a preview whose effect reaches outside the working directory is discarded and the
 * command runs for real (`run`), as `commandExecutor` does for an agent's call (docs/sandbox.md,
 * "Preview before approval").
 */
export async function landPreview(
  first: PreviewedChange,
  context: LandPreviewContext,
): Promise<LandedPreview> {
  let previewed = first;
  for (;;) {
    const { preview } = previewed;
    if (!preview.applicable) {
      await previewed.discard();
      say(context, `Runs again, for real: ${preview.reason ?? 'its preview cannot be applied'}.`);
      return { kind: 'run' };
    }
    if ((await previewed.apply()) === 'applied') {
      say(context, `Applied the previewed change: ${preview.files.length} file(s), exactly as previewed.`);
      if (preview.outputTail !== '') {
        context.stdout.write(preview.outputTail);
        context.onOutput(preview.outputTail);
      }
      return { kind: 'applied', exitCode: preview.exitCode };
    }
    say(context, 'Files it touches changed since the preview: asking again with a fresh preview.');
    const again = await context.askAgain();
    if (again.outcome !== 'allow') return { kind: again.outcome };
    // Allowed without a preview (the fresh one could not be made): the command runs for real.
    if (!again.previewed) return { kind: 'run' };
    previewed = again.previewed;
  }
}

function say(context: LandPreviewContext, text: string): void {
  context.note(text);
  context.printError(`happy-session run: ${text}`);
}
