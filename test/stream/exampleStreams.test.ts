import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_OPTIONS,
  writeSimpleToolCall,
  writeSubagent,
  writeToolCallWithPermission,
} from '../helpers/exampleStreams.js';
import { memorySession, normaliseIds } from '../helpers/memorySession.js';

// The three example streams of docs/protocol.md ("Example Streams"), as documented.
const simpleToolCall = [
  { role: 'user', type: 'text', text: 'Find TODOs' },
  { role: 'agent', type: 'turn-start', turn: 't1' },
  { role: 'agent', type: 'text', turn: 't1', text: 'Searching...', thinking: false },
  {
    role: 'agent',
    type: 'tool-call-start',
    turn: 't1',
    callId: 'c1',
    toolName: 'grep',
    title: 'Searching for TODO',
    description: 'Searching for `TODO` in project root',
    args: { pattern: 'TODO' },
  },
  { role: 'agent', type: 'tool-call-end', turn: 't1', callId: 'c1' },
  { role: 'agent', type: 'text', turn: 't1', text: 'Found 3 TODOs.' },
  { role: 'agent', type: 'turn-end', turn: 't1', status: 'completed' },
];

const toolCallWithPermission = [
  { role: 'user', type: 'text', text: 'Delete node_modules' },
  { role: 'agent', type: 'turn-start', turn: 't2' },
  {
    role: 'agent',
    type: 'tool-call-start',
    turn: 't2',
    callId: 'c2',
    toolName: 'bash',
    title: 'Run `rm -rf node_modules`',
    description: 'Delete node_modules directory',
    args: { command: 'rm -rf node_modules' },
  },
  {
    role: 'agent',
    type: 'permission-request',
    turn: 't2',
    callId: 'c2',
    toolName: 'bash',
    title: 'Run `rm -rf node_modules`',
    args: { command: 'rm -rf node_modules' },
    options: DOCUMENT_OPTIONS,
  },
  { role: 'user', type: 'permission-response', callId: 'c2', optionId: 'allow-once' },
  { role: 'agent', type: 'tool-call-end', turn: 't2', callId: 'c2' },
  { role: 'agent', type: 'text', turn: 't2', text: 'Done. Deleted node_modules.' },
  { role: 'agent', type: 'turn-end', turn: 't2', status: 'completed' },
];

// The document shows this one as an excerpt of a turn: no turn-start / turn-end around it.
const subagent = [
  {
    role: 'agent',
    type: 'tool-call-start',
    turn: 't1',
    callId: 'task1',
    toolName: 'task',
    title: 'Exploring codebase',
    description: 'Searching for auth implementations',
    args: { prompt: 'Find auth code' },
    agentTitle: 'Auth research',
  },
  {
    role: 'agent',
    type: 'text',
    turn: 't1',
    parentId: 'task1',
    agentId: 'agent_sub1',
    text: 'Looking at src/auth/...',
  },
  {
    role: 'agent',
    type: 'tool-call-start',
    turn: 't1',
    parentId: 'task1',
    agentId: 'agent_sub1',
    callId: 'c3',
    toolName: 'grep',
    title: 'Searching for login',
    description: 'Searching for `login` in src/auth/',
    args: { pattern: 'login' },
  },
  {
    role: 'agent',
    type: 'tool-call-end',
    turn: 't1',
    parentId: 'task1',
    agentId: 'agent_sub1',
    callId: 'c3',
  },
  {
    role: 'agent',
    type: 'text',
    turn: 't1',
    parentId: 'task1',
    agentId: 'agent_sub1',
    text: 'Found auth handler.',
  },
  { role: 'agent', type: 'tool-call-end', turn: 't1', callId: 'task1' },
];

describe('the example streams of the protocol document, produced through the builders', () => {
  it('simple tool call', async () => {
    const { writer, reader } = memorySession();
    await writeSimpleToolCall(writer);

    const read = await reader.messages();
    expect(normaliseIds(read)).toEqual(normaliseIds(simpleToolCall));
  });

  it('tool call with permission (answered by a plain appended user message)', async () => {
    const { writer, reader } = memorySession();
    await writeToolCallWithPermission(writer);

    expect(normaliseIds(await reader.messages())).toEqual(normaliseIds(toolCallWithPermission));
  });

  it('subagent, nested via parentId and agentId', async () => {
    const { writer, reader } = memorySession();
    const task = await writeSubagent(writer);

    const read = await reader.messages();
    expect(read[0]).toMatchObject({ type: 'turn-start' });
    expect(read.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
    expect(normaliseIds(read.slice(1, -1))).toEqual(normaliseIds(subagent));
    expect(read[2]).toMatchObject({ agentId: task.agentId });
  });
});
