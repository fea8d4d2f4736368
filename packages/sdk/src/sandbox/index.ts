/**
 * The sandbox (`happy-session/sandbox`, Node only; docs/sandbox.md): a shell whose commands run
 * confined by the operating system (bubblewrap and a network proxy on Linux), on the optional peer
 * `@anthropic-ai/sandbox-runtime`, which loads on first use; and what the gate's `sandbox` option
 * takes from it.
 */
// The confined shell: run a Bash call's command inside the OS sandbox (docs/sandbox.md).
export { sandboxedShell, ShellCommandError } from './sandboxedShell.js';
export type {
  SandboxedShell,
  SandboxedShellOptions,
  ShellCommandResult,
  ShellExecutor,
  ShellRunOptions,
} from './sandboxedShell.js';
export type { SandboxViolation } from './violations.js';
export type { OutputStream } from './processRun.js';
export type { SandboxErrorCode } from '../errorCodes.js';
// The one way to run a tool call's command, sandboxed or not, killing its whole tree on stop.
export { commandExecutor } from './commandExecutor.js';
export type { CommandExecutorOptions } from './commandExecutor.js';
// Preview before approval: run a call that asks first on a copy of the workspace (docs/sandbox.md).
export { previewCommand, shellPreviewer } from './preview.js';
export type { PreviewOptions, PreviewRun, ShellPreviewerOptions } from './preview.js';
export type { TreeBounds } from './previewTree.js';
