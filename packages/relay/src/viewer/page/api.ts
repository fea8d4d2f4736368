import {
  AppendResponseSchema,
  AuthResponseSchema,
  DownloadTicketSchema,
  ReadResponseSchema,
  SessionRowSchema,
} from 'happy-session/internal';
import type { ReadResponse, SessionRow } from 'happy-session/internal';
import { z } from 'zod/mini';
import { authChallengeBody } from 'happy-session/internal';
import { SdkError } from 'happy-session';
import type { ViewerErrorCode } from './errorCodes.js';

/** One page of stored messages (docs/wire.md §5.2). */
export type MessagePage = ReadResponse;
export type { SessionRow };

/** The list as the page reads it: rows of another shape are left out, not fatal. */
const SessionListSchema = z.object({ sessions: z.array(z.unknown()) });

/**
 * The relay's (or a Happy server's) HTTP API as the viewer uses it: mint a token from the master
 * secret, list sessions, read and append messages, download attachments. Every failure is an
 * `SdkError` whose message the page shows as is.
 */
export class ViewerApi {
  private constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  /**
   * Mints a bearer token with the challenge flow (`POST /v1/auth`, docs/wire.md §1.2): the signature
   * is made here, the secret never leaves the page.
   */
  static async signIn(baseUrl: string, masterSecret: Uint8Array): Promise<ViewerApi> {
    const anonymous = new ViewerApi(baseUrl, '');
    const answer = await anonymous.request('POST', '/v1/auth', authChallengeBody(masterSecret));
    return new ViewerApi(baseUrl, expect(AuthResponseSchema, answer, 'POST /v1/auth').token);
  }

  /** `GET /v1/sessions`; rows of another shape are left out. */
  async listSessions(): Promise<SessionRow[]> {
    const answer = expect(SessionListSchema, await this.request('GET', '/v1/sessions'), 'GET /v1/sessions');
    return answer.sessions.flatMap((row) => {
      const parsed = SessionRowSchema.safeParse(row);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** `GET /v3/sessions/:id/messages?after_seq=`: records after `afterSeq`, ascending. */
  async readMessages(sessionId: string, afterSeq: number, limit: number): Promise<MessagePage> {
    const path = `/v3/sessions/${encodeURIComponent(sessionId)}/messages?after_seq=${afterSeq}&limit=${limit}`;
    return expect(ReadResponseSchema, await this.request('GET', path), 'GET messages');
  }

  /** `POST /v3/sessions/:id/messages` with encrypted records; idempotent per `localId`. */
  async appendMessages(
    sessionId: string,
    records: ReadonlyArray<{ content: string; localId: string }>,
  ): Promise<Array<{ localId: string; seq: number }>> {
    const answer = await this.request('POST', `/v3/sessions/${encodeURIComponent(sessionId)}/messages`, {
      messages: records,
    });
    return expect(AppendResponseSchema, answer, 'POST messages').messages.flatMap((m) =>
      m.localId === null ? [] : [{ localId: m.localId, seq: m.seq }],
    );
  }

  /**
   * The encrypted bytes of an attachment: `request-download`, then GET the URL (docs/wire.md §8.2).
   * The token goes only to this server; a presigned URL elsewhere must get no extra header.
   */
  async downloadAttachment(sessionId: string, ref: string): Promise<Uint8Array> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/attachments/request-download`;
    const { downloadUrl } = expect(
      DownloadTicketSchema,
      await this.request('POST', path, { ref }),
      'download',
    );
    const url = new URL(downloadUrl, this.baseUrl);
    const own = url.origin === new URL(this.baseUrl).origin;
    const response = await fetch(url, own ? { headers: { authorization: `Bearer ${this.token}` } } : {});
    if (!response.ok) {
      throw new SdkError<ViewerErrorCode>(
        'viewer.http_failed',
        `Downloading the attachment failed with ${response.status}.`,
      );
    }
    return new Uint8Array(await response.arrayBuffer());
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (cause) {
      throw new SdkError<ViewerErrorCode>(
        'viewer.unreachable',
        `The relay at ${this.baseUrl} cannot be reached.`,
        {
          hint: 'check that `happy-session serve` is still running',
          cause,
        },
      );
    }
    const text = await response.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: reported below with the status
    }
    if (!response.ok) {
      const detail = (json as { error?: unknown } | undefined)?.error;
      throw new SdkError<ViewerErrorCode>(
        'viewer.http_failed',
        `${method} ${path.split('?')[0]} failed with ${response.status}${typeof detail === 'string' ? `: ${detail}` : ''}.`,
      );
    }
    return json;
  }
}

function expect<T>(schema: z.core.$ZodType<T>, value: unknown, what: string): T {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw shapeError(what);
  return parsed.data;
}

function shapeError(what: string): SdkError<ViewerErrorCode> {
  return new SdkError<ViewerErrorCode>(
    'viewer.bad_answer',
    `The server's answer to ${what} has an unexpected shape.`,
  );
}
