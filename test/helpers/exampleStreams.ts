import type { SessionWriter, ToolCall } from 'happy-session';

/** The four options of the protocol document's permission-request example. */
export const DOCUMENT_OPTIONS = [
  { id: 'allow-once', label: 'Allow once', kind: 'allow-once' },
  { id: 'allow-session', label: 'Allow for session', kind: 'allow-always' },
  { id: 'deny', label: 'Deny', kind: 'reject-once' },
  { id: 'deny-always', label: 'Always deny', kind: 'reject-always' },
] as const;

// The three example streams of docs/protocol.md ("Example Streams"), written through the
// builders. Each flushes, so the records are stored when it returns.

/** "Simple tool call". */
export async function writeSimpleToolCall(writer: SessionWriter): Promise<void> {
  writer.append({ role: 'user', type: 'text', text: 'Find TODOs' });
  const turn = writer.turn();
  turn.text('Searching...', { thinking: false });
  turn
    .toolCall({
      toolName: 'grep',
      title: 'Searching for TODO',
      description: 'Searching for `TODO` in project root',
      args: { pattern: 'TODO' },
    })
    .end();
  turn.text('Found 3 TODOs.');
  turn.end('completed');
  await writer.flush();
}

/** "Tool call with permission", answered by a plain appended user message (no gate). */
export async function writeToolCallWithPermission(writer: SessionWriter): Promise<void> {
  writer.append({ role: 'user', type: 'text', text: 'Delete node_modules' });
  const turn = writer.turn();
  const bash = turn.toolCall({
    toolName: 'bash',
    title: 'Run `rm -rf node_modules`',
    description: 'Delete node_modules directory',
    args: { command: 'rm -rf node_modules' },
  });
  writer.append({
    role: 'agent',
    type: 'permission-request',
    turn: turn.id,
    callId: bash.callId,
    toolName: 'bash',
    title: 'Run `rm -rf node_modules`',
    args: { command: 'rm -rf node_modules' },
    options: DOCUMENT_OPTIONS.map((o) => ({ ...o })),
  });
  writer.append({ role: 'user', type: 'permission-response', callId: bash.callId, optionId: 'allow-once' });
  bash.end();
  turn.text('Done. Deleted node_modules.');
  turn.end();
  await writer.flush();
}

/** "Subagent", inside a turn of its own; returns the spawning call. */
export async function writeSubagent(writer: SessionWriter): Promise<ToolCall> {
  const turn = writer.turn();
  const task = turn.toolCall({
    toolName: 'task',
    title: 'Exploring codebase',
    description: 'Searching for auth implementations',
    args: { prompt: 'Find auth code' },
    agentTitle: 'Auth research',
  });
  const sub = task.scope();
  sub.text('Looking at src/auth/...');
  sub
    .toolCall({
      toolName: 'grep',
      title: 'Searching for login',
      description: 'Searching for `login` in src/auth/',
      args: { pattern: 'login' },
    })
    .end();
  sub.text('Found auth handler.');
  task.end();
  turn.end();
  await writer.flush();
  return task;
}
