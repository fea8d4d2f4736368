import {
  writeSimpleToolCall,
  writeSubagent,
  writeToolCallWithPermission,
} from '../../helpers/exampleStreams.js';
import { describe, expect, it } from 'vitest';
import { expectValidV1Stream, normaliseV1, storedRecords, v1MemorySession } from './helpers.js';

// The three example streams of docs/protocol.md ("Example Streams"), produced through the
// builders as in test/stream/exampleStreams.test.ts, written in v1 format and read back decrypted.

const META = { sentFrom: 'cli' };
const agent = (turn: string, ev: Record<string, unknown>) => ({
  role: 'session',
  content: { role: 'agent', turn, ev },
  meta: META,
});
const user = (ev: Record<string, unknown>) => ({
  role: 'session',
  content: { role: 'user', ev },
  meta: META,
});

describe('the example streams of the protocol document, written as v1', () => {
  it('simple tool call: one v1 record per v2 message, user text without turn', async () => {
    const { writer, transport, key } = v1MemorySession();
    await writeSimpleToolCall(writer);

    const stored = await storedRecords(transport, key);
    const records = expectValidV1Stream(stored.map((s) => s.record));
    expect(normaliseV1(records)).toEqual([
      user({ t: 'text', text: 'Find TODOs' }),
      agent('#1', { t: 'turn-start' }),
      agent('#1', { t: 'text', text: 'Searching...', thinking: false }),
      agent('#1', {
        t: 'tool-call-start',
        call: '#2',
        name: 'grep',
        title: 'Searching for TODO',
        description: 'Searching for TODO',
        args: { pattern: 'TODO' },
      }),
      agent('#1', { t: 'tool-call-end', call: '#2' }),
      agent('#1', { t: 'text', text: 'Found 3 TODOs.' }),
      agent('#1', { t: 'turn-end', status: 'completed' }),
    ]);
  });

  it('tool call with permission: the request and the response leave no record', async () => {
    const { writer, transport, key } = v1MemorySession();
    await writeToolCallWithPermission(writer);

    const records = expectValidV1Stream((await storedRecords(transport, key)).map((s) => s.record));
    expect(normaliseV1(records)).toEqual([
      user({ t: 'text', text: 'Delete node_modules' }),
      agent('#1', { t: 'turn-start' }),
      agent('#1', {
        t: 'tool-call-start',
        call: '#2',
        name: 'bash',
        title: 'Run `rm -rf node_modules`',
        description: 'Run `rm -rf node_modules`',
        args: { command: 'rm -rf node_modules' },
      }),
      agent('#1', { t: 'tool-call-end', call: '#2' }),
      agent('#1', { t: 'text', text: 'Done. Deleted node_modules.' }),
      agent('#1', { t: 'turn-end', status: 'completed' }),
    ]);
  });

  it("subagent: written flat at the top of the turn, the subagent's call labelled with its title", async () => {
    const { writer, transport, key } = v1MemorySession();
    await writeSubagent(writer);

    const records = expectValidV1Stream((await storedRecords(transport, key)).map((s) => s.record));
    expect(normaliseV1(records)).toEqual([
      agent('#1', { t: 'turn-start' }),
      agent('#1', {
        t: 'tool-call-start',
        call: '#2',
        name: 'task',
        title: 'Exploring codebase',
        description: 'Exploring codebase',
        args: { prompt: 'Find auth code' },
      }),
      agent('#1', { t: 'text', text: 'Looking at src/auth/...' }),
      agent('#1', {
        t: 'tool-call-start',
        call: '#3',
        name: 'grep',
        title: 'Searching for login',
        description: 'Auth research › Searching for login',
        args: { pattern: 'login' },
      }),
      agent('#1', { t: 'tool-call-end', call: '#3' }),
      agent('#1', { t: 'text', text: 'Found auth handler.' }),
      agent('#1', { t: 'tool-call-end', call: '#2' }),
      agent('#1', { t: 'turn-end', status: 'completed' }),
    ]);
  });
});
