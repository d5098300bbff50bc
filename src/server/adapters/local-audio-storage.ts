import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioStorage } from '../ports.js';

/** Partial files untouched this long are leftovers of a dead run, in a directory shared by processes. */
export const SHARED_PART_STALE_MS = 60_000;

/** Audio files in a directory: local disk, or a directory shared by every process of a deployment. */
export class LocalAudioStorage implements AudioStorage {
  /**
   * @param partStaleMs how long a partial file must have been left alone before it counts as a
   *   leftover. 0 when one process owns the directory (the embedded default); in the distributed mode
   *   a worker that lost its queue lock may still be writing its own, so give it time.
   */
  constructor(
    private readonly dir: string,
    private readonly partStaleMs = 0,
  ) {}

  pathFor(jobId: string): string {
    return join(this.dir, `${jobId}.mp3`);
  }

  /** `<dir>/.parts/<job>/`: inside the audio directory, so a rename into place stays on one file system. */
  private partsDirOf(jobId: string): string {
    return join(this.dir, '.parts', jobId);
  }

  async preparePartsDir(jobId: string): Promise<string> {
    const dir = this.partsDirOf(jobId);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  async stat(jobId: string): Promise<{ size: number } | undefined> {
    try {
      const s = await stat(this.pathFor(jobId));
      return s.isFile() ? { size: s.size } : undefined;
    } catch {
      return undefined;
    }
  }

  async delete(jobId: string): Promise<void> {
    await rm(this.pathFor(jobId), { force: true });
  }

  async removeLeftovers(jobId: string, olderThanMs = this.partStaleMs): Promise<void> {
    // The synthesizer writes `.<job>.mp3.<uuid>.part` in the job's parts directory and renames it
    // into place when done.
    const dir = this.partsDirOf(jobId);
    const names = await readdir(dir).catch(() => [] as string[]);
    const staleBefore = Date.now() - olderThanMs;
    await Promise.all(
      names
        .filter((n) => n.endsWith('.part'))
        .map(async (n) => {
          const path = join(dir, n);
          const s = await stat(path).catch(() => undefined);
          // A file another process still holds (EBUSY on NFS) is left for a later clean-up.
          if (s && s.mtimeMs <= staleBefore) await rm(path, { force: true }).catch(() => undefined);
        }),
    );
    // Fails, harmlessly, while another run of the job still has a fresh partial file there.
    await rmdir(dir).catch(() => undefined);
  }
}
