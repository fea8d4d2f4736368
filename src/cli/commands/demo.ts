import { generateDataKey } from '../../crypto/dataKey.js';
import type { RecordKey } from '../../crypto/records.js';
import { SessionReader } from '../../stream/sessionReader.js';
import { SessionWriter } from '../../stream/sessionWriter.js';
import { fold } from '../../stream/fold.js';
import { MemoryTransport } from '../../transport/memoryTransport.js';
import { runExampleAgent } from '../demo/exampleAgent.js';
import { renderTranscript } from '../transcript.js';

/** Options of the demo command. */
export interface DemoOptions {
  readonly json?: boolean;
}

/**
 * Runs the example agent on an in-memory session, then reads the stream back through a separate
 * reader (decrypting every record) and prints the transcript.
 */
export async function demoCommand(options: DemoOptions, print: (line: string) => void): Promise<number> {
  const transport = new MemoryTransport();
  const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };
  const writer = new SessionWriter({ transport, key });
  const prompt = 'Find TODOs and review the auth code';
  writer.append({ role: 'user', type: 'text', text: prompt });
  await runExampleAgent(writer, prompt);
  await writer.close();

  const reader = new SessionReader({ transport, key });
  const events = await reader.readAll();
  const messages = events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  if (options.json) {
    for (const m of messages) print(JSON.stringify(m));
    return 0;
  }
  print(`session: in-memory (${transport.records.length} encrypted records)`);
  print(renderTranscript(fold(messages)));
  return events.some((e) => e.kind === 'error') ? 1 : 0;
}
