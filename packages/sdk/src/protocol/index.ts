/**
 * `happy-session/protocol`: the v2 message vocabulary in detail, for a program that validates,
 * generates or translates messages one type at a time: each type's schema and named type, the
 * message context an encoder sees, the JSON Schema, ids, the legacy user-text record and the
 * ledger of open permission requests. The root has the whole (`SessionMessage`,
 * `SessionMessageSchema`, `parseSessionMessage`). Each group's reason: docs/api.md,
 * "happy-session/protocol".
 */
// Each message type: its schema and its named type, to validate or build one type at a time.
export {
  PermissionOptionKindSchema,
  PermissionOptionSchema,
  TurnEndStatusSchema,
  TurnStartSchema,
  TurnEndSchema,
  AgentTextSchema,
  ToolCallStartSchema,
  ToolCallEndSchema,
  PermissionRequestSchema,
  PermissionPreviewSchema,
  PreviewFileSchema,
  AgentPhotoSchema,
  AgentVideoSchema,
  AgentFileSchema,
  ServiceSchema,
} from './agentMessages.js';
export {
  UserTextSchema,
  PermissionResponseSchema,
  UserPhotoSchema,
  UserVideoSchema,
  UserFileSchema,
} from './userMessages.js';
export type {
  TurnStartMessage,
  TurnEndMessage,
  AgentTextMessage,
  UserTextMessage,
  ToolCallStartMessage,
  ToolCallEndMessage,
  PermissionRequestMessage,
  PermissionResponseMessage,
  AgentPhotoMessage,
  UserPhotoMessage,
  AgentVideoMessage,
  UserVideoMessage,
  AgentFileMessage,
  UserFileMessage,
  UserMediaMessage,
  ServiceMessage,
  PlanMessage,
  QuestionMessage,
  QuestionEndMessage,
  Question,
} from './sessionMessage.js';
// This SDK's extension types (docs/protocol.md, "Extension types").
export { PlanSchema, PlanEntrySchema, PlanEntryStatusSchema, PlanEntryPrioritySchema } from './plan.js';
export {
  QuestionMessageSchema,
  QuestionEndMessageSchema,
  QuestionSchema,
  QuestionOptionSchema,
  QuestionAnswerSchema,
} from './questionMessages.js';

// Encoding: what an encoder sees beside a message, and the JSON Schema of all of them.
export type { MessageContext, AttachmentContext, PosterContext } from './messageContext.js';
export { sessionMessageJsonSchema } from './jsonSchema.js';

// Ids, legacy records and error codes: the protocol's other vocabulary.
export { isCuid } from './ids.js';
export { legacyUserTextRecord } from './legacyUserText.js';
export type { LegacyUserTextRecord } from './legacyUserText.js';
export type { ProtocolErrorCode } from '../errorCodes.js';

// The permission ledger: which requests are open, by the app's rule, for a UI of its own (docs/permissions.md).
export { PERMISSION_SETTLED_PREFIX, PermissionLedger, ledgerOf } from '../stream/permissionLedger.js';
export type { LedgerClose, LedgerEntry, LedgerMessage } from '../stream/permissionLedger.js';

// The question ledger: which questions wait, for a UI of its own (docs/questions.md).
export { QuestionLedger, questionLedgerOf } from '../stream/questionLedger.js';
