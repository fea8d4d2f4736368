import { basename, isAbsolute, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { blobKeyFor, encryptBlob } from '../crypto/blob.js';
import { sealedBlobBytes } from '../crypto/sealedBlob.js';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { newId } from '../protocol/ids.js';
import type { AttachmentContext, MessageContext, PosterContext } from '../protocol/messageContext.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import type {
  AttachInput,
  AttachOptions,
  AttachPhase,
  AttachProgress,
  AttachTarget,
  MediaRuntime,
  PluginHost,
  UploadedMedia,
} from '../stream/plugins.js';
import type { MediaKind } from './detect.js';
import type { MediaInput } from './input.js';
import { DEFAULT_MAX_MEDIA_BYTES } from './limits.js';
import { mediaError, throwIfAborted } from './mediaError.js';
import { MACHINE_FILE_PREFIX, mediaMessageFields } from './mediaMessage.js';
import { prepareSource, releaseSource } from './prepare.js';
import type { PrepareMediaOptions, PreparedSource, PrepareProgressDetail, PrepareStage } from './prepare.js';
import { withSealedSource } from './sealedFile.js';
import type { MediaUploader } from './uploader.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';

/** Options of {@link MediaPipeline.create}. */
export interface MediaPipelineOptions {
  /** The writer the pipeline installs on: `scope.attach()` works on its turns and calls. */
  readonly writer: PluginHost;
  /** Where encrypted blobs go: `HappyUploader` for a server, `MemoryUploader` in process. */
  readonly uploader: MediaUploader;
  /** The session's record key; attachments are encrypted with its blob key (docs/wire.md §3.2). */
  readonly key: RecordKey;
  /**
   * Largest plaintext accepted, in bytes. Default: what still fits the server's 10 MiB limit once
   * encrypted. Also applies to `upload: false`, since the file is read to probe it.
   */
  readonly maxBytes?: number;
  /**
   * Also upload each video's poster frame as an image of its own, for a wire format that shows a
   * video as its poster (`connect()` sets this for `format: 'v1'`, docs/v1-format.md, "Media").
   * Default false.
   */
  readonly posters?: boolean;
  readonly logger?: Logger;
}

/** Progress of one attachment, on {@link MediaPipeline.progress$}: the {@link AttachProgress} and which one. */
export interface MediaProgress extends AttachProgress {
  /** The id the attachment's message will have. */
  readonly messageId: string;
  /** Its display name (known once the input is read: the input's name until then). */
  readonly name: string;
  /** Its kind, once detected (`file` until then). */
  readonly kind: MediaKind;
}

/**
 * The media pipeline of a writer (docs/architecture.md, "Media"; docs/wire.md §8): prepares an input
 * (kind from its bytes, oriented size, duration, thumbhash; limits checked before any byte is
 * sent), encrypts it with the session's blob key, uploads it, and only once the store holds it
 * appends the `photo` / `video` / `file` message with the returned `ref`. A failure at any step
 * appends nothing.
 */
export class MediaPipeline implements MediaRuntime {
  private readonly uploader: MediaUploader;
  private readonly blobKey: Uint8Array;
  private readonly maxBytes: number;
  private readonly posters: boolean;
  private readonly logger: Logger;
  private readonly progressSubject = new Subject<MediaProgress>();
  /** How many inputs without a name each kind had: they are called `photo-1.png`, `file-2.pdf`, … */
  private readonly unnamed: Record<MediaKind, number> = { photo: 0, video: 0, file: 0 };

  /** Upload progress of every attachment of this pipeline; completes when the writer closes. */
  readonly progress$: Observable<MediaProgress> = this.progressSubject.asObservable();

  /** {@link MediaPipeline.progress$} as an async iterable. */
  progress(options: IterateOptions = {}): AsyncGenerator<MediaProgress> {
    return asyncIterableOf(this.progress$, options);
  }

  private constructor(options: MediaPipelineOptions) {
    this.uploader = options.uploader;
    this.blobKey = blobKeyFor(options.key);
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
    this.posters = options.posters ?? false;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Creates the media pipeline of `options.writer` and installs it there, so `scope.attach()`
   * works on its turns and calls; its {@link MediaPipeline.progress$} completes when the writer
   * closes. `connect()` does this with a `HappyUploader`; a writer made without it needs this call.
   *
   * @example
   * const media = MediaPipeline.create({ writer, uploader: new MemoryUploader(), key });
   * const photo = await writer.turn().attach('./chart.png');
   */
  static create(options: MediaPipelineOptions): MediaPipeline {
    const pipeline = new MediaPipeline(options);
    options.writer.install({
      media: pipeline,
      onLifecycle: (event) => {
        if (event.kind === 'writer-closing') pipeline.progressSubject.complete();
      },
    });
    return pipeline;
  }

  /**
   * Prepares, encrypts and uploads `input`, then appends its message to `target` (the scope's port) and resolves
   * with it (appended, its delivery under way as for any append). With `upload: false`, a path is
   * probed and referenced as `machine-file://<absolute path>`; nothing is uploaded.
   *
   * Errors (`SdkError`, each with a hint; nothing appended): those of `prepareMedia`
   * (`media.unreadable_path`, `media.empty_file`, `media.too_large`, `media.corrupt_image`,
   * `media.truncated_video`, ...), `media.not_a_path`, `media.file_changed` (a file given by path
   * changed before its upload ended), `media.upload_rejected`, `media.upload_failed`,
   * `media.aborted`, and `stream.*` when the scope closed meanwhile.
   */
  async attach(
    target: AttachTarget,
    input: AttachInput,
    options: AttachOptions = {},
  ): Promise<SessionMessage> {
    const { signal } = options;
    throwIfAborted(signal);
    if (options.upload === false) return this.attachLocal(target, input, options);
    // The turn may have ended while the input was probed; then there is nothing to upload for.
    const uploaded = await this.prepareAndUpload(input, options, () => target.assertOpen());
    return target.append({ ...uploaded.content, id: uploaded.id }, uploaded.context);
  }

  /**
   * Prepares, encrypts and uploads `input`, and resolves with the id and fields of the message
   * that should reference it, for a caller that appends that message itself (a user's
   * attachment: `UserSession.send(text, { files })`). Errors as {@link MediaPipeline.attach}.
   */
  upload(input: AttachInput, options: AttachOptions = {}): Promise<UploadedMedia> {
    throwIfAborted(options.signal);
    if (options.upload === false) {
      throw mediaError(
        'media.not_a_path',
        'upload: false leaves a file on the agent machine; an upload of its own must send it',
        'leave out upload: false',
      );
    }
    return this.prepareAndUpload(input, options, () => undefined);
  }

  private async prepareAndUpload(
    input: AttachInput,
    options: AttachOptions,
    beforeUpload: () => void,
  ): Promise<UploadedMedia & { readonly context: MessageContext }> {
    const messageId = newId();
    const progress = new ProgressReporter(
      messageId,
      options.name ?? (typeof input === 'string' ? basename(input) : 'attachment'),
      (p) => {
        options.onProgress?.(toAttachProgress(p));
        this.progressSubject.next(p);
      },
    );
    // A file given by path stays where it is: probed and uploaded from disk (docs/media.md, "Memory").
    const prepared = await prepareSource(
      toMediaInput(input),
      { ...this.prepareOptions(options), onProgress: (stage, detail) => progress.stage(stage, detail) },
      { inPlace: true },
    );
    try {
      return await this.uploadPrepared(prepared, messageId, progress, options, beforeUpload);
    } finally {
      await releaseSource(prepared.source);
    }
  }

  private async uploadPrepared(
    prepared: PreparedSource,
    messageId: string,
    progress: ProgressReporter,
    { signal }: AttachOptions,
    beforeUpload: () => void,
  ): Promise<UploadedMedia & { readonly context: MessageContext }> {
    progress.prepared(prepared);
    beforeUpload();
    const poster = await this.uploadPoster(prepared, signal);
    progress.phase('encrypt');
    const uploadOptions = {
      filename: prepared.name,
      ...(signal ? { signal } : {}),
      onProgress: (sent: number, total: number) => progress.upload(sent, total),
    };
    // Encrypted piece by piece as the upload reads it: no whole ciphertext in memory.
    const { ref } = await withSealedSource(prepared.source, this.blobKey, async (sealed) =>
      this.uploader.uploadSealed
        ? this.uploader.uploadSealed(sealed, uploadOptions)
        : this.uploader.upload(await sealedBlobBytes(sealed), uploadOptions),
    );
    // Uploaded but not yet referenced: an abort now still leaves the stream untouched.
    throwIfAborted(signal);
    this.logger.debug('attachment uploaded', {
      ref,
      kind: prepared.kind,
      size: prepared.size,
      ...(prepared.fitted ? { originalSize: prepared.fitted.originalBytes } : {}),
    });
    return {
      id: messageId,
      content: mediaMessageFields(prepared, ref),
      context: attachmentContext(prepared, poster),
    };
  }

  /** With `posters`, uploads a video's poster frame (a PNG) before the video itself. */
  private async uploadPoster(
    prepared: PreparedSource,
    signal: AbortSignal | undefined,
  ): Promise<PosterContext | undefined> {
    const png = prepared.video?.poster;
    if (!this.posters || !png) return undefined;
    const { ref } = await this.uploader.upload(encryptBlob(png, this.blobKey), {
      filename: `${prepared.name}.poster.png`,
      ...(signal ? { signal } : {}),
    });
    throwIfAborted(signal);
    return { ref, size: png.length, mimeType: 'image/png' };
  }

  private async attachLocal(
    target: AttachTarget,
    input: AttachInput,
    options: AttachOptions,
  ): Promise<SessionMessage> {
    if (typeof input !== 'string') {
      throw mediaError(
        'media.not_a_path',
        'upload: false needs a file path: only a file on this machine can be referenced without uploading it',
        'Pass the path of the file, or leave out upload: false to upload the data',
      );
    }
    const path = isAbsolute(input) ? input : resolve(input);
    const prepared = await prepareSource(path, this.prepareOptions(options), { inPlace: true });
    // Only the message goes out: whatever preparing left on disk is not needed.
    await releaseSource(prepared.source);
    throwIfAborted(options.signal);
    return target.append(
      { ...mediaMessageFields(prepared, `${MACHINE_FILE_PREFIX}${path}`), id: newId() },
      attachmentContext(prepared, undefined),
    );
  }

  private prepareOptions(options: AttachOptions): PrepareMediaOptions {
    return {
      maxBytes: this.maxBytes,
      fallbackName: (kind, ext) => `${kind}-${++this.unnamed[kind]}.${ext}`,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.mimeType !== undefined ? { mimeType: options.mimeType } : {}),
      ...(options.fit !== undefined ? { fit: options.fit } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }
}

/** What the encoder may want beyond the message: the file's name, size and type, and its poster. */
function attachmentContext(prepared: PreparedSource, poster: PosterContext | undefined): MessageContext {
  const attachment: AttachmentContext = {
    name: prepared.name,
    size: prepared.size,
    mimeType: prepared.mimeType,
    ...(poster ? { poster } : {}),
  };
  return { attachment };
}

/** Async iterables that are not Node streams (web streams, generators) are read as a Node stream. */
function toMediaInput(input: AttachInput): MediaInput {
  if (typeof input === 'string' || input instanceof Uint8Array) return input;
  if (typeof (input as { pipe?: unknown }).pipe === 'function') return input as NodeJS.ReadableStream;
  if (Symbol.asyncIterator in (input as object)) return Readable.from(input as AsyncIterable<Uint8Array>);
  return input as MediaInput;
}

/**
 * Turns the preparation stages and the upload into {@link MediaProgress} events: `read`, `detect`
 * and `probe` are the `probe` phase, `compress` is its own; each event carries the sizes known so far.
 */
class ProgressReporter {
  private current: MediaProgress;

  constructor(
    messageId: string,
    name: string,
    private readonly emit: (progress: MediaProgress) => void,
  ) {
    this.current = { messageId, name, kind: 'file', phase: 'probe', sent: 0, total: 0, originalBytes: 0 };
  }

  stage(stage: PrepareStage, detail: PrepareProgressDetail): void {
    if (detail.inputBytes !== undefined) this.current = { ...this.current, originalBytes: detail.inputBytes };
    if (stage === 'compress')
      this.phase('compress', detail.fraction === undefined ? {} : { fraction: detail.fraction });
    else if (stage === 'read') this.phase('probe');
  }

  prepared(prepared: PreparedSource): void {
    this.current = {
      ...this.current,
      name: prepared.name,
      kind: prepared.kind,
      originalBytes: prepared.fitted?.originalBytes ?? prepared.size,
      finalBytes: prepared.size,
    };
  }

  phase(phase: AttachPhase, extra: { fraction?: number } = {}): void {
    const { fraction: _previous, ...rest } = this.current;
    this.current = { ...rest, phase, ...extra };
    this.emit(this.current);
  }

  upload(sent: number, total: number): void {
    this.current = { ...this.current, phase: 'upload', sent, total };
    this.emit(this.current);
  }
}

/** The per-call view of a pipeline event: the same fields without the pipeline's bookkeeping. */
function toAttachProgress(progress: MediaProgress): AttachProgress {
  const { messageId: _id, name: _name, kind: _kind, ...rest } = progress;
  return rest;
}
