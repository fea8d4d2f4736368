export { isCuid, newId } from './ids.js';
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
export { SessionMessageSchema, SESSION_MESSAGE_TYPES } from './sessionMessage.js';
export type {
  SessionMessage,
  SessionMessageType,
  MessageOfType,
  AgentMessage,
  UserMessage,
  TurnStartMessage,
  TurnEndMessage,
  TurnEndStatus,
  AgentTextMessage,
  UserTextMessage,
  ToolCallStartMessage,
  ToolCallEndMessage,
  PermissionRequestMessage,
  PermissionResponseMessage,
  PermissionOption,
  PermissionOptionKind,
  AgentPhotoMessage,
  UserPhotoMessage,
  AgentVideoMessage,
  UserVideoMessage,
  AgentFileMessage,
  UserFileMessage,
  ServiceMessage,
} from './sessionMessage.js';
export { parseSessionMessage, isSessionMessage } from './parse.js';
export type { ProtocolFailure, ProtocolFailureCode, ProtocolIssue } from './parse.js';
export { sessionMessageJsonSchema } from './jsonSchema.js';
