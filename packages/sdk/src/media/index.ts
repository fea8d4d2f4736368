/**
 * The media pipeline (`happy-session/media`, Node only; docs/wire.md §8): read an input, detect its
 * kind from its content, probe photos and videos, compute thumbhashes (preparation); encrypt,
 * upload and append the `photo` / `video` / `file` message (`useMedia`, `scope.attach()`); and
 * download and decrypt attachments again (`MediaReader`, `fetchMedia`).
 */
// Reading and probing: what an input is, its kind, size and ThumbHash (docs/media.md).
export { readMediaInput } from './input.js';
export type { MediaInput, MediaBytes, ReadMediaInputOptions } from './input.js';
export { detectKind, UNKNOWN_MIME_TYPE, TEXT_MIME_TYPE } from './detect.js';
export type { DetectedKind, DetectOverride, MediaKind } from './detect.js';
export { thumbhashFromRgba, thumbhashFromImage } from './thumbhash.js';
export { probeImage } from './probeImage.js';
export type { ImageProbe } from './probeImage.js';
export { locateFfmpeg } from './ffmpeg.js';
export type { FfmpegTools, LocateFfmpegOptions } from './ffmpeg.js';
export { probeVideo } from './probeVideo.js';
export type { ProbeVideoOptions, VideoProbe } from './probeVideo.js';

// Preparing and fitting: what `attach()` does before it encrypts, for a program that prepares alone.
export { prepareMedia } from './prepare.js';
export type {
  FitMode,
  PrepareMediaOptions,
  PrepareProgressDetail,
  PrepareStage,
  PreparedMedia,
} from './prepare.js';
export { fitImage, MIN_FIT_IMAGE_SIDE } from './fitImage.js';
export type { FitImageOptions } from './fitImage.js';
export { fitVideo, MIN_FIT_VIDEO_BITRATE } from './fitVideo.js';
export type { FitVideoOptions } from './fitVideo.js';
export type { FitAttempt, FitResult } from './fitFailure.js';

// Limits: the sizes the pipeline checks against.
export {
  BLOB_OVERHEAD_BYTES,
  DEFAULT_UPLOAD_CHUNK_BYTES,
  DEFAULT_MAX_MEDIA_BYTES,
  MAX_ENCRYPTED_ATTACHMENT_BYTES,
  MAX_FIT_INPUT_BYTES,
  MAX_IMAGE_PIXELS,
  POSTER_MAX_SIDE,
  THUMBHASH_MAX_SIDE,
} from './limits.js';

// The pipeline and the reader: install `attach()` on a writer, download and decrypt attachments.
export type { MediaError } from './mediaError.js';
export { MediaPipeline, useMedia } from './attach.js';
export type { MediaPipelineOptions, MediaProgress } from './attach.js';
export { MediaReader, fetchMedia } from './fetchMedia.js';
export type { MediaReaderOptions } from './fetchMedia.js';

// Uploaders: the port the pipeline uploads through, the Happy server's and an in-memory one.
export { MemoryUploader } from './memoryUploader.js';
export { HappyUploader } from '../transport/happyUploader.js';
export type { HappyUploaderOptions } from '../transport/happyUploader.js';
export type { MemoryUploaderOptions } from './memoryUploader.js';
export type { DownloadOptions, MediaUploader, UploadOptions, UploadResult } from './uploader.js';
export type { RetryOptions } from './retry.js';

// Media messages and error codes: recognise an attachment message and its fields.
export { MACHINE_FILE_PREFIX, isMediaMessage, mediaMessageFields } from './mediaMessage.js';
export type { MediaMessage, MediaMessageFields } from './mediaMessage.js';
export type { MediaErrorCode } from '../errorCodes.js';
