/**
 * `happy-session`: what an agent, a script or a bot writes and reads a session stream with. Runs
 * in Node and in a browser. Node-only parts live behind subpaths: `happy-session/node` (connect to
 * a Happy server), `/permissions`, `/media`, `/sandbox`; the user's side (`/user`), the message
 * vocabulary in detail (`/protocol`), the ports and plugins (`/ports`), secret detection
 * (`/redaction`), the crypto primitives, the v1 codec and the server's wire shapes have subpaths of
 * their own. Each group's reason and names: docs/api.md, "happy-session".
 */

// Errors and logging: what every program catches, logs with and returns (docs/errors.md).
export { SdkError, isSdkError } from './errors.js';
export type { SdkErrorDetailsByCode } from './errors.js';
export type { SdkErrorCode, StreamErrorCode } from './errorCodes.js';
export { silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export type { Result } from './result.js';

// The v2 messages as a whole: what a program reads, checks and names (docs/protocol.md); each
// type's schema and named type are in `/protocol`.
export { SessionMessageSchema, SESSION_MESSAGE_TYPES } from './protocol/sessionMessage.js';
export type {
  SessionMessage,
  SessionMessageType,
  MessageOfType,
  TurnEndStatus,
  PermissionOption,
  PermissionOptionKind,
  PermissionPreview,
  PreviewFile,
} from './protocol/sessionMessage.js';
export { parseSessionMessage, isSessionMessage } from './protocol/parse.js';
export type { ProtocolFailure } from './protocol/parse.js';
export { newId } from './protocol/ids.js';

// Writing: the writer, its builders and what they take and return (docs/architecture.md, "Builders").
export { SessionWriter } from './stream/sessionWriter.js';
export type { SessionWriterOptions } from './stream/sessionWriter.js';
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
export type { PlanEntry } from './protocol/sessionMessage.js';
export type { TextStream, TextStreamOptions } from './stream/textStream.js';

// Questions to the person: what `scope.ask()` takes and gives, and the desk that answers them
// (docs/questions.md).
export type { AskQuestion, AskOptions, AskResult } from './stream/questionPorts.js';
export type { QuestionAnswer } from './protocol/sessionMessage.js';
export type { QuestionsErrorCode } from './errorCodes.js';
export { QuestionDesk } from './questions/questionDesk.js';
export type { QuestionDeskOptions, QuestionEvent, LocalReply } from './questions/questionDesk.js';
export type { QuestionRefusal, QuestionRefusalCode } from './stream/answerResult.js';

// Answers: what the person's answer got, at the gate, the desk or the user's side: one type for
// the three (docs/api.md, "Naming": the reply is `answer` everywhere).
export type { AnswerResult } from './stream/answerResult.js';

// Delivery: what an append promises, and the options of the queue behind it (docs/transport.md).
// The limits themselves are documented there, not exported: a program passes its own through
// these options.
export type { OutboxOptions, FlushOptions, WriterCloseOptions } from './stream/outbox.js';
export { splitText } from './stream/splitText.js';
export type { Delivery, Delivered, EmitOptions, MessageDraft } from './stream/types.js';

// Gated calls and attachments: what `call.requestPermission()` and `scope.attach()` take and give.
export type { Decision } from './stream/decision.js';
export type {
  PermissionRequestOptions,
  PermissionDecision,
  AttachInput,
  AttachOptions,
  AttachPhase,
  AttachProgress,
} from './stream/plugins.js';

// Reading: the reader, its events and the turn tree a UI renders (docs/protocol.md).
export { SessionReader } from './stream/sessionReader.js';
export type { SessionReaderOptions, ReaderEvent } from './stream/sessionReader.js';
export { SessionFold, fold, foldPermissions } from './stream/fold.js';
export type {
  FoldedSession,
  FoldedTurn,
  FoldedCall,
  FoldedAgentGroup,
  FoldedMessage,
  FoldedNode,
} from './stream/fold.js';

// What the framework adapters (`happy-session/ai`, `/openai-agents`, `/claude-agent`) are told of a
// tool, and the code they fail with when their framework is missing (docs/integrations.md).
export type { AdapterToolInfo } from './integrations/toolCalls.js';
export type { IntegrationErrorCode } from './errorCodes.js';

// The port a writer and a reader stand on, and its in-memory implementation (the others: `/ports`).
export type { Transport } from './ports/transport.js';
export { MemoryTransport } from './ports/memoryTransport.js';
