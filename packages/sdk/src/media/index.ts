/**
 * The media pipeline (`happy-session/media`, Node only; docs/wire.md §8): read an input, detect its
 * kind from its content, probe photos and videos, compute thumbhashes (preparation); encrypt,
 * upload and append the `photo` / `video` / `file` message (`MediaPipeline.create`, `scope.attach()`); and
 * download and decrypt attachments again (`MediaReader`, `fetchMedia`).
 */
// Reading and probing: what an input is, its kind, size and ThumbHash (docs/media.md).
export { readMediaInput } from './input.js';
export type { MediaInput, ReadMediaInputOptions } from './input.js';
export { detectKind } from './detect.js';
export type { DetectedKind, MediaKind } from './detect.js';
export { thumbhashFromImage } from './thumbhash.js';
export { probeImage } from './probeImage.js';
export type { ImageProbe } from './probeImage.js';
export { locateFfmpeg } from './ffmpeg.js';
export type { FfmpegTools, LocateFfmpegOptions } from './ffmpeg.js';
export { probeVideo } from './probeVideo.js';
export type { ProbeVideoOptions, VideoProbe } from './probeVideo.js';

// Preparing and fitting: what `attach()` does before it encrypts, for a program that prepares alone.
export { prepareMedia } from './prepare.js';
export type { FitMode, PrepareMediaOptions, PrepareStage, PreparedMedia } from './prepare.js';
export { fitImage } from './fitImage.js';
export type { FitImageOptions } from './fitImage.js';
export { fitVideo } from './fitVideo.js';
export type { FitVideoOptions } from './fitVideo.js';
export type { FitAttempt, FitResult } from './fitFailure.js';

// Limits: the sizes an attachment is checked against before it uploads (the pipeline's inner
// bounds are documented in docs/media.md, not exported).
export { DEFAULT_MAX_MEDIA_BYTES, MAX_ENCRYPTED_ATTACHMENT_BYTES } from './limits.js';

// The pipeline and the reader: install `attach()` on a writer, download and decrypt attachments.
export type { MediaError } from './mediaError.js';
export { MediaPipeline } from './attach.js';
export type { MediaPipelineOptions, MediaProgress } from './attach.js';
export { MediaReader, fetchMedia } from './fetchMedia.js';
export type { MediaReaderOptions } from './fetchMedia.js';

// Uploaders: the port the pipeline uploads through, the Happy server's and an in-memory one.
export { MemoryUploader } from './memoryUploader.js';
export { HappyUploader } from '../transport/happyUploader.js';
export type { HappyUploaderOptions } from '../transport/happyUploader.js';
export type { MemoryUploaderOptions } from './memoryUploader.js';
export type { DownloadOptions, MediaUploader, UploadOptions, UploadResult } from './uploader.js';

// Media messages and error codes: recognise an attachment message and its fields.
export { isMediaMessage, mediaMessageFields } from './mediaMessage.js';
export type { MediaMessage, MediaMessageFields } from './mediaMessage.js';
export type { MediaErrorCode } from '../errorCodes.js';
