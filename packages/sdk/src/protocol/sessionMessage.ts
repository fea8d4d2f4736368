import * as z from '../zod.js';
import type { PermissionOptionSchema, PermissionPreviewSchema } from './agentMessages.js';
import {
  AgentFileSchema,
  AgentPhotoSchema,
  AgentTextSchema,
  AgentVideoSchema,
  PermissionRequestSchema,
  PromptTakenSchema,
  ServiceSchema,
  ToolCallEndSchema,
  ToolCallStartSchema,
  TurnEndSchema,
  TurnStartSchema,
} from './agentMessages.js';
import {
  PermissionResponseSchema,
  UserFileSchema,
  UserPhotoSchema,
  UserTextSchema,
  UserVideoSchema,
} from './userMessages.js';
import { PlanSchema } from './plan.js';
import type { PlanEntrySchema } from './plan.js';
import {
  QuestionAnswerMessageSchema,
  QuestionEndMessageSchema,
  QuestionMessageSchema,
} from './questionMessages.js';
import type { QuestionAnswerSchema, QuestionSchema } from './questionMessages.js';

/**
 * Every v2 message: one discriminated union on `type` (docs/protocol.md, "Event types").
 * The four types both roles may send (`text`, `photo`, `video`, `file`) are unions on `role`, so
 * role constraints are part of the schema: for example a `permission-response` from the agent, or a
 * `turn-start` from the user, fails validation.
 */
export const SessionMessageSchema = z.discriminatedUnion('type', [
  TurnStartSchema,
  TurnEndSchema,
  z.discriminatedUnion('role', [AgentTextSchema, UserTextSchema]),
  ToolCallStartSchema,
  ToolCallEndSchema,
  PermissionRequestSchema,
  PermissionResponseSchema,
  z.discriminatedUnion('role', [AgentPhotoSchema, UserPhotoSchema]),
  z.discriminatedUnion('role', [AgentVideoSchema, UserVideoSchema]),
  z.discriminatedUnion('role', [AgentFileSchema, UserFileSchema]),
  ServiceSchema,
  PlanSchema,
  QuestionMessageSchema,
  QuestionEndMessageSchema,
  QuestionAnswerMessageSchema,
  PromptTakenSchema,
]);

/** The v2 message types, in the order of docs/protocol.md: the draft's 11, then this SDK's extensions. */
export const SESSION_MESSAGE_TYPES = [
  'turn-start',
  'turn-end',
  'text',
  'tool-call-start',
  'tool-call-end',
  'permission-request',
  'permission-response',
  'photo',
  'video',
  'file',
  'service',
  'plan',
  'question',
  'question-end',
  'question-answer',
  'prompt-taken',
] as const;

export type SessionMessageType = (typeof SESSION_MESSAGE_TYPES)[number];
export type SessionMessage = z.output<typeof SessionMessageSchema>;
export type TurnStartMessage = z.output<typeof TurnStartSchema>;
export type TurnEndMessage = z.output<typeof TurnEndSchema>;
export type AgentTextMessage = z.output<typeof AgentTextSchema>;
export type UserTextMessage = z.output<typeof UserTextSchema>;
export type ToolCallStartMessage = z.output<typeof ToolCallStartSchema>;
export type ToolCallEndMessage = z.output<typeof ToolCallEndSchema>;
export type PermissionRequestMessage = z.output<typeof PermissionRequestSchema>;
export type PermissionResponseMessage = z.output<typeof PermissionResponseSchema>;
export type AgentPhotoMessage = z.output<typeof AgentPhotoSchema>;
export type UserPhotoMessage = z.output<typeof UserPhotoSchema>;
export type AgentVideoMessage = z.output<typeof AgentVideoSchema>;
export type UserVideoMessage = z.output<typeof UserVideoSchema>;
export type AgentFileMessage = z.output<typeof AgentFileSchema>;
export type UserFileMessage = z.output<typeof UserFileSchema>;
export type ServiceMessage = z.output<typeof ServiceSchema>;
export type PlanMessage = z.output<typeof PlanSchema>;
export type PlanEntry = z.output<typeof PlanEntrySchema>;
export type PlanEntryStatus = PlanEntry['status'];
export type PlanEntryPriority = NonNullable<PlanEntry['priority']>;
/** `question`: the agent asks the person (docs/questions.md, "In the stream"). */
export type QuestionMessage = z.output<typeof QuestionMessageSchema>;
/** `question-end`: how a question ended, with the answers applied (docs/questions.md). */
export type QuestionEndMessage = z.output<typeof QuestionEndMessageSchema>;
/** `question-answer`: a person's answer to a question, written in the stream by a client (docs/questions.md). */
export type QuestionAnswerMessage = z.output<typeof QuestionAnswerMessageSchema>;
/** `prompt-taken`: the agent took a prompt (docs/recovery.md, "Prompts"). */
export type PromptTakenMessage = z.output<typeof PromptTakenSchema>;
/** One question of a `question` message (docs/questions.md). */
export type Question = z.output<typeof QuestionSchema>;
/** The answer to one question: the option labels picked and the person's own text. */
export type QuestionAnswer = z.output<typeof QuestionAnswerSchema>;
export type AgentMessage = Extract<SessionMessage, { role: 'agent' }>;
export type UserMessage = Extract<SessionMessage, { role: 'user' }>;
/** A user's `photo`, `video` or `file`. */
export type UserMediaMessage = UserPhotoMessage | UserVideoMessage | UserFileMessage;
export type PermissionOption = z.output<typeof PermissionOptionSchema>;
/** What a previewed command would do (docs/sandbox.md, "Preview before approval"). */
export type PermissionPreview = z.output<typeof PermissionPreviewSchema>;
/** One file of a {@link PermissionPreview}. */
export type PreviewFile = PermissionPreview['files'][number];
export type PermissionOptionKind = PermissionOption['kind'];
export type TurnEndStatus = TurnEndMessage['status'];

/** A message of the given type. */
export type MessageOfType<T extends SessionMessageType> = Extract<SessionMessage, { type: T }>;
