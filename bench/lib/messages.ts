import { createCipheriv, randomBytes } from 'node:crypto';
import { encryptRecordBase64 } from '../../packages/sdk/src/crypto/records.js';
import type { RecordKey } from '../../packages/sdk/src/crypto/records.js';
import { newId } from '../../packages/sdk/src/protocol/ids.js';
import type { SessionMessage } from '../../packages/sdk/src/protocol/sessionMessage.js';
import type { SessionWriter } from '../../packages/sdk/src/stream/sessionWriter.js';

const WORDS =
  'the agent reads the file then edits the function and runs the tests again until they pass'.split(' ');

/**
 * The `i`-th sample text: about 200 characters of markdown-ish prose, different per message so
 * that nothing can be cached by accident.
 */
export function sampleText(i: number): string {
  let text = `${i}.`;
  for (let k = 0; text.length < 200; k++) text += ` ${WORDS[(i + k * 7) % WORDS.length]!}`;
  return text;
}

/** Agent `text` messages of one turn, as the SDK would stamp them, for a raw client to post. */
export function textMessages(turn: string, count: number, first = 0): SessionMessage[] {
  const start = Date.now();
  return Array.from({ length: count }, (_, k) => ({
    id: newId(),
    time: start + k,
    role: 'agent' as const,
    turn,
    type: 'text' as const,
    text: sampleText(first + k),
  }));
}

/** A `turn-start`, `count` texts and a `turn-end`: what `turn.text()` × count appends. */
export function textTurn(count: number): SessionMessage[] {
  const turn = newId();
  const start = Date.now();
  return [
    { id: newId(), time: start - 1, role: 'agent', turn, type: 'turn-start' },
    ...textMessages(turn, count),
    { id: newId(), time: start + count, role: 'agent', turn, type: 'turn-end', status: 'completed' },
  ];
}

/** A record ready to post: the message's id as `localId`, as the SDK's writer uses it. */
export interface RawRecord {
  readonly localId: string;
  readonly content: string;
}

/** Encrypts messages up front, in parallel, so the raw baseline pays no crypto while timed. */
export async function encryptAll(messages: readonly SessionMessage[], key: RecordKey): Promise<RawRecord[]> {
  return Promise.all(
    messages.map(async (m) => ({ localId: m.id, content: await encryptRecordBase64(m, key) })),
  );
}

/**
 * The cheapest real client's encryption: `JSON.stringify`, `node:crypto` AES-256-GCM and
 * `Buffer` base64, no validation, in Happy's dataKey layout `0x00 || nonce12 || ct || tag16`
 * (docs/wire.md §3.1). Only for a dataKey session; the raw-with-crypto baseline times it.
 */
export function encryptRawNode(messages: readonly SessionMessage[], key: RecordKey): RawRecord[] {
  if (key.variant !== 'dataKey') throw new Error('encryptRawNode seals dataKey records only');
  return messages.map((m) => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.key, nonce);
    const body = Buffer.concat([
      Buffer.of(0),
      nonce,
      cipher.update(JSON.stringify(m), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return { localId: m.id, content: body.toString('base64') };
  });
}

/** Messages per turn of {@link writeMixedTurn}. */
export const MIXED_TURN_SIZE = 10;

/**
 * One turn of a typical agent stream through the SDK's builders: reasoning, text, a tool call with
 * output inside it, a nested subagent call, and the turn end. Exactly {@link MIXED_TURN_SIZE}
 * messages; `i` varies the texts.
 */
export function writeMixedTurn(writer: SessionWriter, i: number): void {
  const turn = writer.turn();
  turn.thinking(sampleText(i));
  turn.text(sampleText(i + 1));
  const call = turn.toolCall({ toolName: 'bash', title: 'Run the tests', args: { command: 'npm test' } });
  call.scope().text(sampleText(i + 2));
  const sub = call.scope().toolCall({ toolName: 'read', title: 'Read a file', args: { path: 'src/a.ts' } });
  sub.end();
  call.end();
  turn.text(sampleText(i + 3));
  turn.end();
}
