/**
 * `happy-session/user`: the user's side of a session, as the Happy app has it: read a session,
 * send prompts and files, stop the agent, answer permission requests (docs/user-side.md).
 * Browser-safe; on Node, `Account.session(id)` of `happy-session/node` opens one. Each group's
 * reason: docs/api.md, "happy-session/user".
 */
// A user's session: read, send, stop, answer (docs/user-side.md).
export { UserSession } from './session/userSession.js';
export type { SessionFormat } from './session/sessionFormat.js';
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

// Answers: what `answer()` takes and returns.
export type { PermissionChoice, AnswerChannels } from './session/permissionAnswer.js';
export type { SentPermissionAnswer, SettledPermissionRequest } from './stream/answerResult.js';
export type { QuestionReply, SentQuestionReply } from './session/questionReply.js';

// Error codes: what this entry's failures carry (docs/errors.md).
export type { SessionErrorCode } from './errorCodes.js';
