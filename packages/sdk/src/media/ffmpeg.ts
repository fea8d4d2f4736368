import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { mediaError } from './mediaError.js';

/** Absolute paths of the two ffmpeg executables video probing runs. */
export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
}

/** Where {@link locateFfmpeg} looks. Both default to the normal lookup; tests narrow them. */
export interface LocateFfmpegOptions {
  /** The search path, in the format of `$PATH`. Default: `process.env.PATH`. */
  searchPath?: string;
  /** Whether to fall back to the optional npm packages `@ffmpeg-installer/ffmpeg` / `@ffprobe-installer/ffprobe`. Default: true. */
  installerPackages?: boolean;
}

const INSTALLER_PACKAGES = {
  ffmpeg: '@ffmpeg-installer/ffmpeg',
  ffprobe: '@ffprobe-installer/ffprobe',
} as const;

let defaultLookup: Promise<FfmpegTools> | undefined;

/**
 * Finds `ffmpeg` and `ffprobe`: on the `PATH` first (a system install is usually newer and
 * patched), then in the optional npm installer packages. Each tool is looked up on its own, so a
 * system ffmpeg can pair with a packaged ffprobe.
 *
 * The default lookup is done once per process; a failed lookup is retried on the next call.
 * Throws `media.ffmpeg_missing`, whose hint says how to install them.
 */
export function locateFfmpeg(options?: LocateFfmpegOptions): Promise<FfmpegTools> {
  if (options !== undefined) return lookup(options);
  defaultLookup ??= lookup({}).catch((error: unknown) => {
    defaultLookup = undefined;
    throw error;
  });
  return defaultLookup;
}

async function lookup(options: LocateFfmpegOptions): Promise<FfmpegTools> {
  const searchPath = options.searchPath ?? process.env.PATH ?? '';
  const useInstallers = options.installerPackages ?? true;
  const [ffmpeg, ffprobe] = await Promise.all(
    (['ffmpeg', 'ffprobe'] as const).map(
      async (tool) =>
        (await findOnPath(tool, searchPath)) ?? (useInstallers ? await findInInstaller(tool) : undefined),
    ),
  );
  if (ffmpeg === undefined || ffprobe === undefined) {
    const missing = [ffmpeg === undefined ? 'ffmpeg' : '', ffprobe === undefined ? 'ffprobe' : '']
      .filter(Boolean)
      .join(' and ');
    throw mediaError(
      'media.ffmpeg_missing',
      `Videos need ffmpeg and ffprobe, but ${missing} could not be found`,
      'Install ffmpeg with your package manager (apt-get install ffmpeg, brew install ffmpeg, winget install ffmpeg) ' +
        `so it is on the PATH, or add the npm packages ${INSTALLER_PACKAGES.ffmpeg} and ${INSTALLER_PACKAGES.ffprobe}`,
      { details: { missing } },
    );
  }
  return { ffmpeg, ffprobe };
}

async function findOnPath(tool: string, searchPath: string): Promise<string | undefined> {
  const names = process.platform === 'win32' ? [`${tool}.exe`, tool] : [tool];
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '') continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The installer packages are optional peer dependencies; absent, or on an unsupported platform, they throw on import. */
async function findInInstaller(tool: keyof typeof INSTALLER_PACKAGES): Promise<string | undefined> {
  const specifier: string = INSTALLER_PACKAGES[tool];
  try {
    const loaded = (await import(specifier)) as { default?: { path?: unknown }; path?: unknown };
    const path = loaded.default?.path ?? loaded.path;
    return typeof path === 'string' && (await isExecutable(path)) ? path : undefined;
  } catch {
    return undefined;
  }
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
