/**
 * `happy-session/protocol`: the v2 message vocabulary in detail, for a program that names or
 * encodes messages one type at a time: each type's named type, the message context an encoder
 * sees, the JSON Schema and ids. The root has the whole (`SessionMessage`, `SessionMessageSchema`,
 * `parseSessionMessage`, `MessageOfType`); a message of one type is validated with the whole
 * schema and narrowed by its `type`. Each group's reason: docs/api.md, "happy-session/protocol".
 */
// Each message type's named type, to build or read one type at a time.
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

// Encoding: what an encoder sees beside a message, and the JSON Schema of all of them.
export type { MessageContext, AttachmentContext, PosterContext } from './messageContext.js';
export { sessionMessageJsonSchema } from './jsonSchema.js';

// Ids and error codes: the protocol's other vocabulary.
export { isCuid } from './ids.js';
export type { ProtocolErrorCode } from '../errorCodes.js';
