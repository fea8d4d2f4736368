import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom, ReplaySubject } from 'rxjs';
import { query } from '@anthropic-ai/claude-agent-sdk';
import type { Options, Query } from '@anthropic-ai/claude-agent-sdk';
import { happyCanUseTool, happyClaude } from 'happy-session/claude-agent';
import type { HappyClaudeResult } from 'happy-session/claude-agent';
import type { RecordKey } from 'happy-session/crypto';
import type { SessionMessage } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { ensureClaudeCodeBinary } from '../../../scripts/claude-code/ensureBinary.js';
import { isolatedEnv } from '../../../examples/claude-agent/agent.js';
import { startScriptedModel } from '../../../examples/claude-agent/scriptedModel.js';
import type { ModelScript, ScriptedModel } from '../../../examples/claude-agent/scriptedModel.js';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount, tempDir } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';

/**
 * The real Claude Code binary (installed for the tests by scripts/claude-code/ensureBinary.ts)
 * driven through the real Claude Agent SDK against a scripted Anthropic API on 127.0.0.1, mirrored
 * into a session on a relay of the test's own, and the Happy app (a user socket) answering by RPC.
 */
export interface ClaudeWorld {
  readonly account: RelayAccount;
  readonly session: Session;
  readonly app: AppClient;
  readonly key: RecordKey;
  readonly model: ScriptedModel;
  /** The folder Claude Code works in. */
  readonly work: string;
  /** Everything the session's writer appended, as it appended it. */
  readonly written: ReplaySubject<SessionMessage>;
  /** The script the model answers with; tests set it. */
  script: ModelScript;
  /** Runs one prompt through `query()`, mirrored by `happyClaude()`. */
  run(prompt: string, options?: Options): { query: Query; done: Promise<HappyClaudeResult> };
  /** The first message written that matches, whether written already or later. */
  next<T extends SessionMessage['type']>(
    type: T,
    match?: (m: Extract<SessionMessage, { type: T }>) => boolean,
  ): Promise<Extract<SessionMessage, { type: T }>>;
  /** Calls the session's RPC as the app does. */
  rpc(method: string, params: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** The binary, fetched once and cached (`.cache/claude-code/`). */
export function claudeCodeBinary(): Promise<string> {
  return ensureClaudeCodeBinary();
}

export async function claudeWorld(binary: string): Promise<ClaudeWorld> {
  const dir = tempDir('claude-agent-');
  const home = join(dir.path, 'home');
  const work = join(dir.path, 'work');
  mkdirSync(home);
  mkdirSync(work);
  const account = await relayWithAccount();
  const session = await connect({ server: account.relay.url, credentials: account.credentials });
  const app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  const key = await app.keyOf(session.id);
  const written = new ReplaySubject<SessionMessage>();
  const queries: Query[] = [];
  session.writer.messages$.subscribe(written);
  const world: ClaudeWorld = {
    account,
    session,
    app,
    key,
    work,
    written,
    script: () => ({ content: [{ type: 'text', text: 'No script for this request.' }] }),
    model: undefined as unknown as ScriptedModel,
    run(prompt, options = {}) {
      const run = query({
        prompt,
        options: {
          cwd: work,
          env: isolatedEnv(home, { baseUrl: world.model.url, apiKey: 'sk-ant-test-offline' }),
          settingSources: [],
          pathToClaudeCodeExecutable: binary,
          canUseTool: happyCanUseTool(session),
          ...options,
        },
      });
      queries.push(run);
      return { query: run, done: happyClaude(session, run) };
    },
    next(type, match = () => true) {
      return firstValueFrom(
        written.pipe(
          filter((m): m is Extract<SessionMessage, { type: typeof type }> => m.type === type),
          filter(match),
        ),
      );
    },
    async rpc(method, params) {
      await session.writer.flush();
      return app.call(session.id, method, params, key);
    },
    async close() {
      for (const run of queries) run.close();
      app.close();
      await session.close();
      await world.model.close();
      await account.relay.close();
      // Claude Code may still be writing its own files as it exits.
      rmSync(dir.path, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    },
  };
  (world as { model: ScriptedModel }).model = await startScriptedModel((request) => world.script(request));
  return world;
}

/** The stream as compact rows: what a reader sees of texts, calls, results and ends. */
export function rows(messages: readonly SessionMessage[]): unknown[] {
  return messages.flatMap((m): unknown[] => {
    const at = {
      ...(m.parentId !== undefined ? { parentId: m.parentId } : {}),
      ...(m.agentId !== undefined ? { agentId: m.agentId } : {}),
    };
    switch (m.type) {
      case 'text':
        return [
          {
            type: 'text',
            role: m.role,
            text: m.text,
            ...('thinking' in m && m.thinking ? { thinking: true } : {}),
            ...at,
          },
        ];
      case 'tool-call-start':
        return [{ type: m.type, callId: m.callId, toolName: m.toolName, args: m.args, ...at }];
      case 'permission-request':
        return [{ type: m.type, callId: m.callId, ...at }];
      case 'permission-response':
        return [
          {
            type: m.type,
            callId: m.callId,
            optionId: m.optionId,
            ...(m.updatedInput ? { updatedInput: m.updatedInput } : {}),
          },
        ];
      case 'tool-call-end':
        return [
          { type: m.type, callId: m.callId, ...(m.error !== undefined ? { error: m.error } : {}), ...at },
        ];
      case 'turn-start':
        return [{ type: m.type }];
      case 'turn-end':
        return [{ type: m.type, status: m.status }];
      case 'service':
        return [{ type: m.type, text: m.text }];
      default:
        return [];
    }
  });
}
