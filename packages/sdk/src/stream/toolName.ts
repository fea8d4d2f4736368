import { SdkError } from '../errors.js';
import { toolNameProblem } from '../protocol/toolName.js';

/**
 * Throws `stream.invalid_message` when a tool call's name cannot be read exactly
 * ({@link toolNameProblem}): such a call never starts, so it never reaches the permission policy.
 */
export function requireExactToolName(name: unknown): void {
  const problem = toolNameProblem(name);
  if (problem === undefined) return;
  throw new SdkError('stream.invalid_message', `Tool call refused: ${problem}.`, {
    hint: 'pass the tool name exactly, without surrounding spaces, control, invisible or Unicode space characters; the call was not started',
    details: { toolName: name, problem },
  });
}
