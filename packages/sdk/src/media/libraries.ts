import type sharpModule from 'sharp';
import type * as fileTypeModule from 'file-type';

/**
 * The media pipeline's heavy libraries, loaded on first use rather than at import: an agent that
 * never attaches anything never loads libvips (sharp) or the file-type detectors, and importing
 * `happy-session/node` stays quick (docs/performance.md, "Install size and cold imports").
 */
let sharpLoading: Promise<typeof sharpModule> | undefined;
let fileTypeLoading: Promise<typeof fileTypeModule> | undefined;

/** sharp's default export, imported once. */
export function loadSharp(): Promise<typeof sharpModule> {
  sharpLoading ??= import('sharp').then((module) => module.default);
  return sharpLoading;
}

/** The file-type module, imported once. */
export function loadFileType(): Promise<typeof fileTypeModule> {
  fileTypeLoading ??= import('file-type');
  return fileTypeLoading;
}
