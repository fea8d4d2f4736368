// A small stand-in for the Anthropic Messages API on 127.0.0.1, for running Claude Code offline: it
// answers each `POST /v1/messages` with the reply a script gives, streamed as the real API streams
// it (server-sent events `message_start`, `content_block_start`, `content_block_delta`,
// `content_block_stop`, `message_delta`, `message_stop`), and keeps every request it was sent so a
// test can read what the model was told (a tool's result, a denial). Point Claude Code at it with
// `ANTHROPIC_BASE_URL` and any `ANTHROPIC_API_KEY`.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One content block of a scripted reply. */
export type ScriptedBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string }
  | {
      readonly type: 'tool_use';
      readonly name: string;
      readonly input: Record<string, unknown>;
      /** Default a fresh `toolu_…` id. */
      readonly id?: string;
    };

/** What the model answers to one request. */
export interface ScriptedReply {
  readonly content: readonly ScriptedBlock[];
  /** Default `tool_use` when a block is a tool use, else `end_turn`. */
  readonly stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /**
   * Holds the reply's end: the stream stops after its content blocks until this settles (a test
   * that stops the run while the model is still "speaking").
   */
  readonly holdUntil?: Promise<unknown>;
}

/** A content block of a request, as far as the scripts read it. */
export interface RequestBlock {
  readonly type: string;
  readonly text?: string;
  readonly tool_use_id?: string;
  readonly content?: string | readonly { readonly type: string; readonly text?: string }[];
  readonly is_error?: boolean;
  readonly name?: string;
  readonly id?: string;
  readonly input?: unknown;
}

/** A `POST /v1/messages` body, as far as the scripts read it. */
export interface MessagesRequest {
  readonly model: string;
  readonly stream?: boolean;
  readonly system?: string | readonly { readonly type: string; readonly text: string }[];
  readonly messages: readonly { readonly role: string; readonly content: string | readonly RequestBlock[] }[];
  readonly tools?: readonly { readonly name: string }[];
}

/** Chooses the reply to a request. */
export type ModelScript = (request: MessagesRequest) => ScriptedReply | Promise<ScriptedReply>;

/** A running scripted model. */
export interface ScriptedModel {
  /** Give this as `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  /** Every `/v1/messages` request, in the order they came. */
  readonly requests: readonly MessagesRequest[];
  close(): Promise<void>;
}

let lastId = 0;
const nextId = (prefix: string): string =>
  `${prefix}_${(++lastId).toString(36).padStart(8, '0')}${process.pid}`;

/** Starts the scripted model on a free loopback port. */
export async function startScriptedModel(script: ModelScript): Promise<ScriptedModel> {
  const requests: MessagesRequest[] = [];
  const server = createServer((request, response) => {
    void answer(request, response, script, requests).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
      } else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  script: ModelScript,
  requests: MessagesRequest[],
): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  const body = await readBody(request);
  if (request.method !== 'POST' || path !== '/v1/messages') {
    // count_tokens and anything else Claude Code may ask: a small answer that satisfies it.
    const reply = path === '/v1/messages/count_tokens' ? { input_tokens: 10 } : {};
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply));
    return;
  }
  const parsed = JSON.parse(body) as MessagesRequest;
  requests.push(parsed);
  const reply = await script(parsed);
  const content = reply.content.map((block) =>
    block.type === 'tool_use' ? { ...block, id: block.id ?? nextId('toolu') } : block,
  );
  const stopReason =
    reply.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  const message = {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model: parsed.model,
    content: [] as unknown[],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (!parsed.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        ...message,
        content: content.map(wholeBlock),
        stop_reason: stopReason,
        usage: { ...message.usage, output_tokens: 10 },
      }),
    );
    return;
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const send = (event: string, data: unknown) =>
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', { type: 'message_start', message });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      for (const piece of pieces(block.text)) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: piece },
        });
      }
    } else if (block.type === 'thinking') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const piece of pieces(block.thinking)) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: piece },
        });
      }
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: 'c2NyaXB0ZWQ=' },
      });
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      for (const piece of pieces(JSON.stringify(block.input))) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
      }
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  if (reply.holdUntil) await reply.holdUntil;
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  send('message_stop', { type: 'message_stop' });
  response.end();
}

function wholeBlock(block: ScriptedBlock & { id?: string }): unknown {
  return block.type === 'thinking' ? { ...block, signature: 'c2NyaXB0ZWQ=' } : block;
}

/** A text in three pieces, so that a reader must join deltas. */
function pieces(text: string): string[] {
  if (text.length < 3) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The text of the last user message of a request (its text blocks joined), or ''. */
export function lastUserText(request: MessagesRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n');
}

/**
 * The tool results the model is given now: those of the user message after the model's last turn
 * (Claude Code may put system messages after it).
 */
export function toolResults(request: MessagesRequest): readonly RequestBlock[] {
  const lastAssistant = request.messages.map((m) => m.role).lastIndexOf('assistant');
  if (lastAssistant < 0) return [];
  return request.messages
    .slice(lastAssistant + 1)
    .flatMap((m) => (m.role === 'user' && typeof m.content !== 'string' ? m.content : []))
    .filter((b) => b.type === 'tool_result');
}

/** A tool result's text. */
export function resultText(block: RequestBlock): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((c) => c.text ?? '').join('\n');
}
