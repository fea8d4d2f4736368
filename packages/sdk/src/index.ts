/**
 * `happy-session`: what an agent, a script or a bot writes and reads a session stream with. Runs
 * in Node and in a browser. Node-only parts live behind subpaths: `happy-session/node` (connect to
 * a Happy server), `/permissions`, `/media`; the crypto primitives, the v1 codec and the server's
 * wire shapes have subpaths of their own (`/crypto`, `/v1`, `/wire`). See docs/architecture.md.
 */

// Errors and logging.
export { SdkError, isSdkError } from './errors.js';
export type { SdkErrorOptions } from './errors.js';
export type {
  SdkErrorCode,
  ProtocolErrorCode,
  CryptoErrorCode,
  StreamErrorCode,
  TransportErrorCode,
  CredentialsErrorCode,
  PermissionsErrorCode,
  QuestionsErrorCode,
  MediaErrorCode,
  SessionErrorCode,
  RelayErrorCode,
  ViewerErrorCode,
  CliErrorCode,
} from './errorCodes.js';
export { silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export type { Result } from './result.js';

// The v2 messages (docs/protocol.md).
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
} from './protocol/agentMessages.js';
export {
  UserTextSchema,
  PermissionResponseSchema,
  UserPhotoSchema,
  UserVideoSchema,
  UserFileSchema,
} from './protocol/userMessages.js';
export { SessionMessageSchema, SESSION_MESSAGE_TYPES } from './protocol/sessionMessage.js';
export {
  PlanSchema,
  PlanEntrySchema,
  PlanEntryStatusSchema,
  PlanEntryPrioritySchema,
} from './protocol/plan.js';
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
  UserMediaMessage,
  ServiceMessage,
  PlanMessage,
  PlanEntry,
  PlanEntryStatus,
  PlanEntryPriority,
} from './protocol/sessionMessage.js';
export {
  QuestionMessageSchema,
  QuestionEndMessageSchema,
  QuestionSchema,
  QuestionOptionSchema,
  QuestionAnswerSchema,
} from './protocol/questionMessages.js';
export type {
  QuestionMessage,
  QuestionEndMessage,
  Question,
  QuestionAnswer,
} from './protocol/sessionMessage.js';
export { legacyUserTextRecord } from './protocol/legacyUserText.js';
export type { LegacyUserTextRecord } from './protocol/legacyUserText.js';
export { parseSessionMessage, isSessionMessage } from './protocol/parse.js';
export type { ProtocolFailure, ProtocolIssue } from './protocol/parse.js';
export { newId, isCuid } from './protocol/ids.js';
export { sessionMessageJsonSchema } from './protocol/jsonSchema.js';

// Writing: the writer and its builders.
export { SessionWriter } from './stream/sessionWriter.js';
export type { SessionWriterOptions } from './stream/sessionWriter.js';
export type { MessageContext, AttachmentContext, PosterContext } from './protocol/messageContext.js';
export type {
  Turn,
  ToolCall,
  ToolCallOptions,
  ToolCallEndOptions,
  RunResult,
  RunContext,
  Scope,
  StepOptions,
} from './stream/builders.js';
export { DEFAULT_CLOSE_DEADLINE_MS } from './stream/sessionWriter.js';

// Questions to the person (docs/questions.md).
export type { AskQuestion, AskOptions, AskResult } from './stream/questionPorts.js';
export { QuestionLedger, questionLedgerOf } from './stream/questionLedger.js';
export { QuestionDesk } from './questions/questionDesk.js';
export type { QuestionDeskOptions, QuestionEvent, LocalReply } from './questions/questionDesk.js';
export type { QuestionAnswerResult, QuestionRefusal, QuestionRefusalCode } from './questions/answerResult.js';
export type { OutboxOptions, FlushOptions, WriterCloseOptions } from './stream/outbox.js';
export { DEFAULT_MAX_QUEUED, DEFAULT_MAX_QUEUED_BYTES } from './stream/outbox.js';
export { MAX_END_TEXT_BYTES } from './stream/endText.js';
export { MAX_RECORD_BYTES } from './stream/recordSize.js';
export { splitText, MAX_TEXT_BYTES } from './stream/splitText.js';
export { DEFAULT_IDLE_MS, DEFAULT_MAX_CHARS } from './stream/textStream.js';
export type { TextStream, TextStreamOptions, TextStreamTimers } from './stream/textStream.js';
export type { SplitTextOptions } from './stream/splitText.js';
export type { Delivery, Delivered, EmitOptions, MessageDraft, StreamLifecycleEvent } from './stream/types.js';
export { Redactor, secretValuesOf, MIN_REGISTERED_SECRET_LENGTH } from './stream/redactor.js';
export type { RedactOptions, RedactionCounts, RegisteredSecret } from './stream/redactor.js';
export { DEFAULT_SECRET_DETECTORS } from './stream/secretDetectors.js';
export type { SecretDetector, SecretMatch } from './stream/secretDetectors.js';
export { entropyDetector, shannonBits } from './stream/entropyDetector.js';
export type { EntropyDetectorOptions } from './stream/entropyDetector.js';
export type { Decision, DecisionOutcome, DecisionSource, DecisionVia } from './stream/decision.js';
export type {
  PermissionRequestOptions,
  PermissionDecision,
  PermissionRuntime,
  AttachInput,
  AttachOptions,
  AttachPhase,
  AttachProgress,
  MediaRuntime,
  AttachTarget,
  MediaContent,
  UploadedMedia,
  WriterPlugin,
  WriterPlugins,
} from './stream/plugins.js';

// Reading.
export { SessionReader } from './stream/sessionReader.js';
export type {
  SessionReaderOptions,
  ReaderEvent,
  ReaderMessageEvent,
  ReaderErrorEvent,
  ReaderSkippedEvent,
  ReaderErrorCode,
  RecordFormat,
} from './stream/sessionReader.js';
export type { LostField } from './protocol/v1/fromV1.js';
export { SessionFold, fold, foldPermissions } from './stream/fold.js';
export type {
  FoldedSession,
  FoldedTurn,
  FoldedCall,
  FoldedCallStatus,
  FoldedAgentGroup,
  FoldedMessage,
  FoldedNode,
} from './stream/fold.js';
export { PERMISSION_SETTLED_PREFIX, PermissionLedger, ledgerOf } from './stream/permissionLedger.js';
export type { LedgerClose, LedgerEntry, LedgerMessage } from './stream/permissionLedger.js';

// The ports a transport implements, and their in-memory implementations.
export type {
  Transport,
  OutgoingRecord,
  AppendAck,
  AppendOptions,
  StoredRecord,
  ReadPage,
} from './ports/transport.js';
export { isRetryableTransportError, retryAfterOf, RetryPolicy, retrying } from './ports/retryPolicy.js';
export type { RetryPolicyOptions, RetryingOptions, RetryNotice } from './ports/retryPolicy.js';
export { recordFeed, DEFAULT_TAIL_CHECK_MS, DEFAULT_MAX_TAIL_CHECK_MS } from './ports/recordFeed.js';
export type { RecordFeedOptions } from './ports/recordFeed.js';
export { asyncIterableOf } from './ports/asyncIterable.js';
export type { IterateOptions } from './ports/asyncIterable.js';
export { MemoryTransport } from './ports/memoryTransport.js';
export { MemoryRpc } from './ports/rpc.js';
export type { RpcHandler, RpcContext, RpcRegistry, RpcOutcome, SessionRpcCaller } from './ports/rpc.js';
export { MemorySessionState } from './ports/sessionState.js';
export type { SessionStateStore, PushNotifier, PushEvent, StateObject } from './ports/sessionState.js';

// The user's side of a session, as the Happy app has it (browser-safe; `Account.session()` in
// `happy-session/node` opens one on Node).
export { UserSession } from './session/userSession.js';
export type {
  UserSessionParts,
  AgentActivity,
  SendOptions,
  SentPrompt,
  FileProgress,
  AttachTurnOptions,
  AttachedTurn,
  AnswerOptions,
} from './session/userSession.js';
export { answerPermission, optionFor, CHOICE_KINDS } from './session/permissionAnswer.js';
export type {
  PermissionChoice,
  AnswerChannels,
  PermissionAnswerResult,
  SentPermissionAnswer,
  SettledPermissionRequest,
} from './session/permissionAnswer.js';
export type { QuestionReply, SentQuestionReply } from './session/questionReply.js';
export { callSessionRpc } from './transport/sessionRpc.js';
