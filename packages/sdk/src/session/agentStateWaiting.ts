import { DEFAULT_PERMISSION_OPTIONS } from '../policy/options.js';
import type { PermissionOptionKind } from '../policy/options.js';
import type { StateObject } from '../ports/sessionState.js';
import { QuestionSchema } from '../protocol/questionMessages.js';
import type {
  PermissionOption,
  PermissionRequestMessage,
  QuestionMessage,
  SessionMessage,
} from '../protocol/sessionMessage.js';

/**
 * The answers today's app can give a request in `agentState.requests` (docs/wire.md §7.3): allow
 * once, allow for the session, deny. Its body has no "always deny".
 */
export const AGENT_STATE_OPTIONS: readonly PermissionOption[] = DEFAULT_PERMISSION_OPTIONS.filter(
  (o) => o.kind !== 'reject-always',
);

/** The app's `permission` RPC body for an option kind (docs/wire.md §7.3). */
export function appPermissionBody(id: string, kind: PermissionOptionKind): Record<string, unknown> {
  switch (kind) {
    case 'allow-once':
      return { id, approved: true, decision: 'approved' };
    case 'allow-always':
      return { id, approved: true, decision: 'approved_for_session' };
    default:
      // "denied", not a bare `approved: false`: a deny is an answer, not a stop.
      return { id, approved: false, decision: 'denied' };
  }
}

function entries(value: unknown): Array<[string, Record<string, unknown>]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([id, entry]) =>
    typeof entry === 'object' && entry !== null && !Array.isArray(entry)
      ? [[id, entry as Record<string, unknown>] as [string, Record<string, unknown>]]
      : [],
  );
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function time(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/**
 * The permission requests waiting in `agentState.requests`, where a v1 session keeps them
 * (docs/v1-format.md, "Permissions"), as `permission-request` messages: `id` is the request's
 * agentState key (what the app's answer names), `callId` its `toolUseId` (the key when there is
 * none). The title and turn come from the call's `tool-call-start` in `messages` when it is there.
 * An entry without a tool name is not one the app could show, and is left out.
 */
export function requestsInAgentState(
  agentState: StateObject,
  messages: readonly SessionMessage[],
): PermissionRequestMessage[] {
  const starts = new Map(
    messages.flatMap((m) => (m.type === 'tool-call-start' ? [[m.callId, m] as const] : [])),
  );
  return entries(agentState.requests)
    .flatMap(([id, entry]): PermissionRequestMessage[] => {
      const toolName = text(entry.tool);
      if (toolName === undefined) return [];
      const callId = text(entry.toolUseId) ?? id;
      const start = starts.get(callId);
      return [
        {
          id,
          role: 'agent',
          type: 'permission-request',
          turn: start?.turn ?? id,
          time: time(entry.createdAt),
          callId,
          toolName,
          title: start?.title ?? toolName,
          ...(entry.arguments !== undefined ? { args: entry.arguments as Record<string, unknown> } : {}),
          options: [...AGENT_STATE_OPTIONS],
        },
      ];
    })
    .sort((a, b) => a.time - b.time);
}

/**
 * The questions waiting in `agentState.communications`, where a v1 session keeps them
 * (docs/questions.md, "In today's app"), as `question` messages whose `questionId` is the key the
 * `communication` RPC names. A form whose questions do not read as questions is left out.
 */
export function questionsInAgentState(agentState: StateObject): QuestionMessage[] {
  return entries(agentState.communications)
    .flatMap(([questionId, entry]): QuestionMessage[] => {
      if (entry.kind !== 'form') return [];
      const form = entry.form as { questions?: unknown } | undefined;
      if (!Array.isArray(form?.questions) || form.questions.length === 0) return [];
      const questions = form.questions.map((q) => QuestionSchema.safeParse(q));
      if (!questions.every((q) => q.success)) return [];
      const parent = text(entry.toolUseId);
      const title = text(entry.title);
      return [
        {
          id: questionId,
          role: 'agent',
          type: 'question',
          turn: questionId,
          time: time(entry.createdAt),
          questionId,
          ...(parent !== undefined ? { parentId: parent } : {}),
          ...(title !== undefined ? { title } : {}),
          questions: questions.map((q) => q.data!),
        },
      ];
    })
    .sort((a, b) => a.time - b.time);
}
