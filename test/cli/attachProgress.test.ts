import { describe, expect, it } from 'vitest';
import { attachProgressLine } from '../../packages/cli/src/progress/attachProgress.js';

const MiB = 1024 * 1024;

describe('the attachment progress line', () => {
  it('shows each phase with the original and, once known, the final size', () => {
    const original = 31.2 * MiB;
    const final = 9.7 * MiB;
    expect(attachProgressLine({ phase: 'probe', sent: 0, total: 0, originalBytes: 0 })).toBe(
      `probe     ${'·'.repeat(20)}  `,
    );
    expect(
      attachProgressLine({ phase: 'compress', sent: 0, total: 0, originalBytes: original, fraction: 0.35 }),
    ).toBe(`compress  ${'█'.repeat(7)}${'░'.repeat(13)}  35%  31.2 MiB → …`);
    expect(
      attachProgressLine({ phase: 'encrypt', sent: 0, total: 0, originalBytes: original, finalBytes: final }),
    ).toBe(`encrypt   ${'·'.repeat(20)}  31.2 MiB → 9.7 MiB`);
    expect(
      attachProgressLine({
        phase: 'upload',
        sent: final / 2,
        total: final,
        originalBytes: original,
        finalBytes: final,
      }),
    ).toBe(`upload    ${'█'.repeat(10)}${'░'.repeat(10)}  4.8 MiB / 9.7 MiB  (31.2 MiB → 9.7 MiB)`);
  });

  it('leaves out the sizes in brackets when nothing was compressed', () => {
    expect(
      attachProgressLine({ phase: 'upload', sent: 2048, total: 2048, originalBytes: 2008, finalBytes: 2008 }),
    ).toBe(`upload    ${'█'.repeat(20)}  2.0 KiB / 2.0 KiB`);
  });
});
