export { SessionWriter } from './sessionWriter.js';
export type { SessionWriterOptions } from './sessionWriter.js';
export { Turn } from './turn.js';
export { ToolCall } from './toolCall.js';
export type { ToolCallOptions, ToolCallEndOptions } from './toolCall.js';
export { Scope } from './scope.js';
export type { StepOptions } from './scope.js';
export { Outbox } from './outbox.js';
export type { OutboxOptions } from './outbox.js';
export { MonotonicClock } from './clock.js';
export type { Delivery, Delivered, MessageDraft, StreamLifecycleEvent } from './types.js';
export { SessionReader } from './sessionReader.js';
export type {
  SessionReaderOptions,
  ReaderEvent,
  ReaderMessageEvent,
  ReaderErrorEvent,
  ReaderErrorCode,
} from './sessionReader.js';
export { SessionFold, fold, foldPermissions } from './fold.js';
export type {
  FoldedSession,
  FoldedTurn,
  FoldedCall,
  FoldedCallStatus,
  FoldedAgentGroup,
  FoldedMessage,
  FoldedNode,
} from './fold.js';
export type { RunResult, RunContext } from './toolCall.js';
export type {
  PermissionRequestOptions,
  PermissionDecision,
  PermissionRuntime,
  AttachInput,
  AttachOptions,
  AttachProgress,
  MediaRuntime,
  WriterPlugins,
} from './plugins.js';
