import type { PermissionPreview } from '../protocol/sessionMessage.js';
import type { MessageContext } from '../protocol/messageContext.js';
import { SdkError } from '../errors.js';
import type { Decision } from './decision.js';
import type {
  AgentFileMessage,
  AgentPhotoMessage,
  AgentVideoMessage,
  PermissionOption,
  SessionMessage,
} from '../protocol/sessionMessage.js';
import type { GatedCall } from './gatePorts.js';
import type { StreamLifecycleEvent } from './types.js';
import type { QuestionRuntime } from './questionPorts.js';

/** Per-request options of {@link ToolCall.requestPermission} (docs/permissions.md). */
export interface PermissionRequestOptions {
  /** Choices offered; default the four of docs/protocol.md. Ids and kinds are validated. */
  readonly options?: readonly PermissionOption[];
  /** Cancels the request (it resolves `cancelled`); an already aborted signal emits no request. */
  readonly signal?: AbortSignal;
  /** Optional deadline; there is no default timeout, since a human may take hours. */
  readonly timeoutMs?: number;
  /** What a timeout resolves to: `deny` (default) or `cancel`; never `allow`. */
  readonly onTimeout?: 'deny' | 'cancel';
}

/**
 * What a call would do, from a run on a copy of the workspace before the person was asked, with
 * the copy it ran on (docs/sandbox.md, "Preview before approval"). Made by the gate's `preview`
 * option (`shellPreviewer()` of `happy-session/sandbox`).
 */
export interface PreviewedChange {
  readonly preview: PermissionPreview;
  /** Lands exactly the previewed files if none of them changed since; `stale` otherwise, and nothing lands. */
  apply(): Promise<'applied' | 'stale'>;
  /** Forgets the copy. */
  discard(): Promise<void>;
}

/** The gate's `preview` option: previews a call that asks, or says `undefined` for one it does not preview. */
export type CallPreviewer = (call: {
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
}) => Promise<PreviewedChange | undefined>;

/** A gate decision, with the arguments the tool may run with when it is an allow. */
export type PermissionDecision = Decision & {
  /** The preview the person saw, on an allow of a previewed request: the executor applies it. */
  readonly previewed?: PreviewedChange;
  /** The user's validated replacement arguments, when they edited them. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** The user asked to stop the turn as well (today's app: a denial without `decision: 'denied'`). */
  readonly interrupt?: boolean;
};

/** What the permission gate does for the stream layer; implemented by `PermissionGate`. */
export interface PermissionRuntime {
  /** Resolves (never rejects) with the decision; any non-allow outcome has ended the call. */
  requestPermission(call: GatedCall, options: PermissionRequestOptions): Promise<PermissionDecision>;
}

/**
 * An attachment's input: a file path, bytes, or a stream of bytes. No Node type: a Node `Readable`
 * (`fs.createReadStream()`, `process.stdin`) is an async iterable of bytes.
 */
export type AttachInput = string | Uint8Array | AsyncIterable<Uint8Array>;

/**
 * The phases of an attachment, in order: `probe` (read, detect, measure), `compress` (only when a
 * photo or video is re-encoded to fit the server's limit), `encrypt`, `upload` (docs/media.md).
 */
export type AttachPhase = 'probe' | 'compress' | 'encrypt' | 'upload';

/** Progress of an attachment: its phase, its sizes and, while uploading, the bytes sent. */
export interface AttachProgress {
  readonly phase: AttachPhase;
  /** Encrypted bytes handed to the network so far; 0 before `upload`, and again from 0 on a retry. */
  readonly sent: number;
  /** The encrypted size; 0 before `encrypt`. */
  readonly total: number;
  /** Share of the `compress` phase done, 0..1, when it can tell (ffmpeg does; image steps estimate it). */
  readonly fraction?: number;
  /** The plaintext size of the input (0 until the input has been read). */
  readonly originalBytes: number;
  /** The plaintext size of what is sent, once known: after `compress`, or the input's own size. */
  readonly finalBytes?: number;
}

/** Options of {@link Scope.attach}. */
export interface AttachOptions {
  /** Display name; default the file name, or one made from the detected type. */
  readonly name?: string;
  /** MIME type for a plain file (photos and videos keep the type of their bytes). */
  readonly mimeType?: string;
  /** `false` leaves a path on this machine and references it as `machine-file://<absolute path>`. */
  readonly upload?: boolean;
  /**
   * A photo or video over the server's 10 MiB limit: `auto` (default) re-encodes it until it fits
   * (sharp for images, ffmpeg H.264/AAC for videos); `never` refuses it with `media.too_large`.
   * The message describes what was sent (docs/media.md, "Fitting the server's limit").
   */
  readonly fit?: 'auto' | 'never';
  /**
   * When the file cannot be sent (`media.*`, not a stop or an abort), `scope.attach()` writes a
   * `service` note in the scope saying which file and why, which the app, the viewer and `watch`
   * show (docs/media.md, "When a file cannot be sent"); `false` leaves the stream untouched.
   * Default `true`.
   */
  readonly failureNote?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: AttachProgress) => void;
}

/** The fields a writer or scope stamps on a message. */
type Stamped = 'id' | 'time' | 'role' | 'turn' | 'parentId' | 'agentId';

/** What a `photo`, `video` or `file` message says of its upload, of either role (docs/protocol.md). */
export type MediaContent =
  Omit<AgentPhotoMessage, Stamped> | Omit<AgentVideoMessage, Stamped> | Omit<AgentFileMessage, Stamped>;

/** An upload in the store, not yet referenced by any message. */
export interface UploadedMedia {
  /** The id the message that references it should carry (progress events name it). */
  readonly id: string;
  readonly content: MediaContent;
  /** What an encoder other than v2 needs to write the message (a v1 caption's file name, say). */
  readonly context?: MessageContext;
}

/**
 * What the media pipeline may do with the scope it attaches to: the narrow port `Scope.attach`
 * builds, so that the pipeline depends on no builder class.
 */
export interface AttachTarget {
  /** Throws `SdkError` (`stream.turn_ended`, `stream.scope_closed`) once the scope cannot be written to. */
  assertOpen(): void;
  /**
   * Appends the media message, stamped with the scope's turn, parent and agent; `context` goes to
   * the writer's `encode` hook. Returns the message as appended; throws as `assertOpen` does.
   */
  append(content: MediaContent & { readonly id: string }, context: MessageContext): SessionMessage;
}

/** What the media pipeline does for the stream layer; implemented in `happy-session/media`. */
export interface MediaRuntime {
  /** Prepares, encrypts and uploads `input`, then appends its `photo` / `video` / `file` message to `target`. */
  attach(target: AttachTarget, input: AttachInput, options: AttachOptions): Promise<SessionMessage>;
  /**
   * Prepares, encrypts and uploads `input` and resolves with what its message must say, for a
   * message the caller appends itself (a user's attachment, which has no scope).
   */
  upload(input: AttachInput, options: AttachOptions): Promise<UploadedMedia>;
}

/** The runtimes installed on a writer: what `requestPermission()`, `run()` and `attach()` use. */
export interface WriterPlugins {
  permissions?: PermissionRuntime;
  media?: MediaRuntime;
  questions?: QuestionRuntime;
}

/**
 * What a plug-in gives a writer (`SessionWriter.install`): the one typed hook through which
 * the permission gate and the media pipeline plug into `stream/` (docs/architecture.md, "Floors of
 * the SDK").
 */
export interface WriterPlugin {
  /** Answers `call.requestPermission()` and `call.run()`: the permission gate. */
  readonly permissions?: PermissionRuntime;
  /** Sends `scope.attach()`: the media pipeline. */
  readonly media?: MediaRuntime;
  /** Answers `scope.ask()`: the question desk (docs/questions.md). */
  readonly questions?: QuestionRuntime;
  /**
   * Structural events (a call, a turn or the writer about to close), delivered synchronously
   * before the message they announce is appended. A hook that throws is logged, never rethrown.
   */
  readonly onLifecycle?: (event: StreamLifecycleEvent) => void;
  /**
   * Seals a message as it will be stored (after redaction and validation): the seal it returns
   * goes into the message's `seal` field; `undefined` leaves the message unsealed. The permission
   * gate seals its own records with a key that stays on this machine (docs/permissions.md, "The
   * agent's own records"). A hook that throws refuses the message (`stream.invalid_message`).
   */
  readonly seal?: (message: SessionMessage) => string | undefined;
}

/** Where plug-ins are installed: implemented by `SessionWriter`. */
export interface PluginHost {
  /** Installs `plugin`; returns the function that uninstalls it. */
  install(plugin: WriterPlugin): () => void;
}

/** The plug-in, or a typed error saying how to install it. */
export function requirePlugin<K extends keyof WriterPlugins>(
  plugins: WriterPlugins,
  name: K,
): NonNullable<WriterPlugins[K]> {
  const plugin = plugins[name];
  if (plugin) return plugin as NonNullable<WriterPlugins[K]>;
  if (name === 'questions')
    throw new SdkError('questions.not_configured', 'This writer has no question desk.', {
      hint: "create one: QuestionDesk.create({ writer }) from 'happy-session', or use connect()",
    });
  throw name === 'permissions'
    ? new SdkError('permissions.no_gate', 'This writer has no permission gate.', {
        hint: "create one: await PermissionGate.create({ writer }) from 'happy-session/permissions', or use connect()",
      })
    : new SdkError('media.not_configured', 'This writer has no media pipeline.', {
        hint: "create one: MediaPipeline.create({ writer, uploader, key }) from 'happy-session/media', or use connect()",
      });
}
