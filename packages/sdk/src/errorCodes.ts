/**
 * Every code an {@link SdkError} of the SDK can carry, one string-literal union per layer, so a typo
 * in a code fails to compile wherever one is thrown or compared. The relay, its viewer and the
 * command line keep their codes in their own packages (`SdkError<C>` takes any code set). See
 * docs/errors.md.
 */

/** Why a value is not a valid v2 message (returned in a `ProtocolFailure`, never thrown). */
export type ProtocolErrorCode =
  | 'protocol.not_an_object'
  | 'protocol.unknown_type'
  | 'protocol.invalid_message'
  | 'protocol.v1_encode_failed'
  | 'protocol.v1_not_session'
  | 'protocol.v1_invalid';

/** Why a record, bundle or encoded value could not be opened, or a key was refused (docs/crypto.md). */
export type CryptoErrorCode =
  | 'crypto.invalid_base64'
  | 'crypto.too_short'
  | 'crypto.bad_version'
  | 'crypto.auth_failed'
  | 'crypto.invalid_utf8'
  | 'crypto.invalid_json'
  | 'crypto.bad_key'
  | 'crypto.unavailable';

/** Failures of the writer, its builders and its readers. */
export type StreamErrorCode =
  | 'stream.invalid_message'
  | 'stream.encode_failed'
  | 'stream.closed'
  | 'stream.delivery_failed'
  | 'stream.turn_ended'
  | 'stream.scope_closed'
  | 'stream.agent_title_late'
  | 'stream.too_large'
  | 'stream.undelivered'
  | 'stream.delivery_stalled'
  | 'stream.secret_too_short'
  | 'stream.invalid_options'
  | 'stream.turn_stopped'
  | 'stream.backpressure'
  | 'stream.implausible_time';

/** Failures of a transport: the network, the server's answers, the session's wire format. */
export type TransportErrorCode =
  | 'transport.network'
  | 'transport.timeout'
  | 'transport.server_error'
  | 'transport.storage_full'
  | 'transport.rate_limited'
  | 'transport.rejected'
  | 'transport.unauthorized'
  | 'transport.socket_refused'
  | 'transport.not_found'
  | 'transport.closed'
  | 'transport.bad_response'
  | 'transport.not_happy_server'
  | 'transport.bad_server_url'
  | 'transport.format_unsupported'
  | 'transport.invalid_metadata';

/** Failures to find, read or use the account's keys on disk (docs/transport.md). */
export type CredentialsErrorCode =
  | 'credentials.missing'
  | 'credentials.malformed'
  | 'credentials.insecure_permissions'
  | 'credentials.cannot_open';

/** Failures of the permission layer's configuration and of the gate's installation, and the gate's refusals of answers. */
export type PermissionsErrorCode =
  | 'permissions.no_gate'
  | 'permissions.invalid_mode'
  | 'permissions.invalid_rule'
  | 'permissions.invalid_timeout'
  | 'permissions.unsafe_timeout_action'
  | 'permissions.shell_unavailable'
  | 'permissions.invalid_record_key'
  | 'permissions.options_not_array'
  | 'permissions.options_empty'
  | 'permissions.option_kind_unknown'
  | 'permissions.option_id_duplicate'
  | 'permissions.options_no_reject'
  // A refusal of an answer (the gate's `AnswerResult<'gate'>`; docs/permissions.md, "What follows an answer").
  | 'permissions.unknown_request'
  | 'permissions.invalid_option'
  | 'permissions.invalid_payload'
  | 'permissions.not_allowed'
  | 'permissions.mode_not_allowed'
  | 'permissions.rule_mismatch'
  | 'permissions.invalid_updated_input';

/**
 * Failures of questions (docs/questions.md): thrown for a bad `ask()` (`questions.not_configured`,
 * `questions.invalid`, `questions.invalid_timeout`), returned as the typed refusal of an answer
 * (the others).
 */
export type QuestionsErrorCode =
  | 'questions.not_configured'
  | 'questions.invalid'
  | 'questions.invalid_timeout'
  | 'questions.unknown'
  | 'questions.settled'
  | 'questions.unknown_question'
  | 'questions.unknown_option'
  | 'questions.required_missing'
  | 'questions.not_multi_select'
  | 'questions.custom_not_allowed'
  | 'questions.invalid_answer'
  | 'questions.not_allowed';

/** Every failure kind of the media pipeline: preparation, upload, download (docs/media.md). */
export type MediaErrorCode =
  | 'media.not_configured'
  | 'media.unreadable_path'
  | 'media.unreadable_stream'
  | 'media.empty_file'
  | 'media.too_large'
  | 'media.corrupt_image'
  | 'media.corrupt_video'
  | 'media.truncated_video'
  | 'media.no_video_stream'
  | 'media.ffmpeg_missing'
  | 'media.unsupported'
  | 'media.invalid_pixels'
  | 'media.aborted'
  | 'media.upload_rejected'
  | 'media.upload_failed'
  | 'media.download_failed'
  | 'media.decrypt_failed'
  | 'media.bad_ref'
  | 'media.not_a_path'
  | 'media.file_changed';

/** Failures of the sandbox that confines shell commands (`happy-session/sandbox`, docs/sandbox.md). */
export type SandboxErrorCode =
  | 'sandbox.unavailable'
  | 'sandbox.busy'
  | 'sandbox.invalid_options'
  | 'sandbox.invalid_command'
  | 'sandbox.preview_too_large'
  | 'sandbox.preview_stale';

/** Failures of the framework adapters (`happy-session/ai`, `happy-session/openai-agents`, …; docs/integrations.md). */
export type IntegrationErrorCode =
  | 'integration.framework_missing'
  | 'integration.duplicate_call_id'
  | 'integration.approval_mismatch'
  | 'integration.not_approved'
  | 'integration.foreign_approval';

/**
 * Failures of a session: the user's side (`UserSession`: answering, sending) and the agent's one
 * live writer (docs/writer-lease.md).
 */
export type SessionErrorCode =
  | 'session.request_not_pending'
  | 'session.option_not_offered'
  | 'session.channel_not_in_format'
  | 'session.in_use'
  | 'session.taken_over';

/** Any code an {@link SdkError} can carry. */
export type SdkErrorCode =
  | ProtocolErrorCode
  | CryptoErrorCode
  | StreamErrorCode
  | TransportErrorCode
  | CredentialsErrorCode
  | PermissionsErrorCode
  | QuestionsErrorCode
  | MediaErrorCode
  | SandboxErrorCode
  | IntegrationErrorCode
  | SessionErrorCode;
