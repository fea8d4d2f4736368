// A bot that answers with a photo, a video and a PDF, with text around them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Session } from 'happy-session/node';
import { gradientPng, onePagePdf, testPatternMp4 } from './samples.js';

/** Where the bot left the files it sent. */
export interface MediaBotFiles {
  readonly photo: string;
  readonly video: string;
  readonly pdf: string;
  readonly turnId: string;
}

/**
 * One turn with three attachments. `turn.attach()` reads the content's type from its bytes, probes
 * size and duration, computes the thumbhash, encrypts and uploads, and only then appends the
 * `photo` / `video` / `file` message; it takes a path, bytes or a stream.
 */
export async function runMediaBot(session: Session, workDir: string): Promise<MediaBotFiles> {
  const photo = join(workDir, 'gradient.png');
  const video = join(workDir, 'test-pattern.mp4');
  const pdf = join(workDir, 'report.pdf');
  await writeFile(photo, await gradientPng(320, 200));
  await testPatternMp4(video);
  await writeFile(pdf, onePagePdf('Happy media bot report'));

  const turn = session.turn();
  turn.text('Here is what I made.');
  turn.text('A gradient, drawn with sharp:');
  await turn.attach(photo);
  turn.text('One second of test pattern, encoded with ffmpeg:');
  await turn.attach(video);
  turn.text('And the report:');
  await turn.attach(await readFile(pdf), { name: 'report.pdf' });
  turn.text('That is all.');
  turn.end();
  await session.writer.flush();
  return { photo, video, pdf, turnId: turn.id };
}
