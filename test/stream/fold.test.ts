import { describe, expect, it } from 'vitest';
import type { FoldedCall, FoldedTurn } from 'happy-session';
import { fold, foldPermissions } from 'happy-session';
import { memorySession } from '../helpers/memorySession.js';

const OPTIONS = [
  { id: 'allow-once', label: 'Allow once', kind: 'allow-once' as const },
  { id: 'deny', label: 'Deny', kind: 'reject-once' as const },
];

describe('fold', () => {
  it('builds turns, calls, children by parentId and subagent groups with their title', async () => {
    const { writer, reader } = memorySession();
    writer.append({ role: 'user', type: 'text', text: 'Find auth code' });
    const turn = writer.turn();
    turn.text('Looking');
    const task = turn.toolCall({ toolName: 'task', agentTitle: 'Auth research' });
    const sub = task.scope();
    sub.text('Looking at src/auth/...');
    const grep = sub.toolCall({ toolName: 'grep' });
    grep.scope().text('3 matches');
    grep.end();
    const failing = turn.toolCall({ toolName: 'bash' });
    failing.end({ error: 'exit 1' });
    task.end();
    turn.end('failed');
    await writer.flush();

    const folded = fold(await reader.messages());
    expect(folded.timeline.map((n) => n.kind)).toEqual(['message', 'turn']);
    const t = folded.timeline[1] as FoldedTurn;
    expect(t.status).toBe('failed');
    expect(t.children.map((n) => (n.kind === 'call' ? `call:${n.start.toolName}` : n.message.type))).toEqual([
      'text',
      'call:task',
      'call:bash',
    ]);
    const taskNode = folded.call(task.callId)!;
    expect(taskNode.status).toBe('done');
    expect(taskNode.children).toEqual([]);
    expect(taskNode.agents).toHaveLength(1);
    expect(taskNode.agents[0]).toMatchObject({ agentId: task.agentId, title: 'Auth research' });
    expect(taskNode.agents[0]!.children.map((n) => n.kind)).toEqual(['message', 'call']);
    const grepNode = taskNode.agents[0]!.children[1] as FoldedCall;
    expect(grepNode.children).toHaveLength(1);
    expect(folded.call(failing.callId)!.status).toBe('failed');
  });

  it('tells a call the user denied from one that failed', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const denied = turn.toolCall({ toolName: 'bash' });
    const allowed = turn.toolCall({ toolName: 'bash' });
    for (const call of [denied, allowed]) {
      writer.append({
        role: 'agent',
        type: 'permission-request',
        turn: turn.id,
        callId: call.callId,
        toolName: 'bash',
        title: 'Run',
        options: OPTIONS,
      });
    }
    writer.append({ role: 'user', type: 'permission-response', callId: denied.callId, optionId: 'deny' });
    writer.append({
      role: 'user',
      type: 'permission-response',
      callId: allowed.callId,
      optionId: 'allow-once',
    });
    denied.end({ error: 'Denied by the user.' });
    allowed.end({ error: 'exit 1' });
    turn.end();
    await writer.flush();

    const folded = fold(await reader.messages());
    expect(folded.call(denied.callId)!.status).toBe('denied');
    expect(folded.call(allowed.callId)!.status).toBe('failed');
  });

  it('tracks pending permission requests until a user response or the call end', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const a = turn.toolCall({ toolName: 'bash' });
    const b = turn.toolCall({ toolName: 'edit' });
    const c = turn.toolCall({ toolName: 'fetch' });
    for (const call of [a, b, c]) {
      writer.append({
        role: 'agent',
        type: 'permission-request',
        turn: turn.id,
        callId: call.callId,
        toolName: call.toolName,
        title: call.title,
        options: OPTIONS,
      });
    }
    writer.append({ role: 'user', type: 'permission-response', callId: a.callId, optionId: 'allow-once' });
    b.end({ error: 'cancelled' });
    await writer.flush();
    const messages = await reader.messages();

    const folded = fold(messages);
    expect(folded.pendingPermissions.map((p) => p.callId)).toEqual([c.callId]);
    expect(folded.call(a.callId)!.permission!.response!.optionId).toBe('allow-once');
    expect(folded.call(a.callId)!.status).toBe('running');
    expect(folded.call(c.callId)!.status).toBe('awaiting-permission');
    expect(folded.call(b.callId)!.status).toBe('cancelled');

    // foldPermissions agrees with fold on every prefix.
    for (let i = 0; i <= messages.length; i++) {
      const prefix = messages.slice(0, i);
      expect(foldPermissions(prefix).map((p) => p.callId)).toEqual(
        fold(prefix).pendingPermissions.map((p) => p.callId),
      );
    }
  });
});
