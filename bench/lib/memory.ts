import { readFile, writeFile } from 'node:fs/promises';

/** Writing 5 to `/proc/self/clear_refs` resets VmHWM, the peak RSS the kernel tracks (Linux). */
export async function resetPeakRss(): Promise<boolean> {
  try {
    await writeFile('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** VmHWM of `/proc/self/status` in bytes; the process-lifetime peak where there is no procfs. */
export async function peakRss(): Promise<number> {
  try {
    const status = await readFile('/proc/self/status', 'utf8');
    const kb = status.match(/^VmHWM:\s+(\d+)\s+kB/m)?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // no procfs: fall through
  }
  return process.resourceUsage().maxRSS * 1024;
}
