// The public surface of the packages, as API Extractor reports it from the built declarations:
// one report per entry point, committed under packages/<pkg>/api/, so a change to what users can
// import shows in review. `npm run api` rewrites the reports; `npm run api -- --check` (CI) fails
// when the built declarations and the committed reports differ. Run `npm run build` first.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

/** Each entry point: the package folder, the declaration file tsup wrote, the report's name. */
const entries = [
  ...['index', 'node', 'permissions', 'media', 'sandbox', 'crypto', 'v1', 'wire', 'claude-agent'].map(
    (entry) => ({
      pkg: 'sdk',
      dts: `dist/${entry}.d.ts`,
      report: entry === 'index' ? 'happy-session' : `happy-session-${entry}`,
    }),
  ),
  { pkg: 'relay', dts: 'dist/index.d.ts', report: 'happy-session-relay' },
];

let failed = 0;
for (const { pkg, dts, report } of entries) {
  const folder = join(root, 'packages', pkg);
  mkdirSync(join(folder, 'api'), { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: folder,
      mainEntryPointFilePath: join(folder, dts),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2023', 'dom'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
        },
      },
      apiReport: {
        enabled: true,
        reportFolder: join(folder, 'api'),
        reportTempFolder: join(folder, 'dist/api-temp'),
        reportFileName: `${report}.api.md`,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // Release tags (@public, @beta) are not used: every export is public.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Chunk files of the build hold declarations that several entries share.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None },
          // Undocumented members are marked in the reports themselves.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          // {@link} across entries (a type of the root named in `/node`'s docs) cannot be resolved
          // from one entry's declarations; the links work in editors, which see the sources.
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: join(folder, 'api-extractor.json'),
    packageJsonFullPath: join(folder, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false });
  if (!result.succeeded || (check && result.apiReportChanged)) {
    failed += 1;
    process.stderr.write(
      `${report}: ${result.apiReportChanged ? 'the public API changed; run `npm run build && npm run api` and commit packages/' + pkg + '/api/' : `${result.errorCount} errors, ${result.warningCount} warnings`}\n`,
    );
  }
}
if (failed > 0) process.exitCode = 1;
else
  process.stdout.write(
    `API reports ${check ? 'match the build' : 'written'}: ${entries.length} entry points\n`,
  );
