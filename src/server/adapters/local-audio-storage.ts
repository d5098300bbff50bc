import { randomUUID } from 'node:crypto';
import { access, copyFile, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AudioStorage, AudioWriter, ByteRange } from '../ports/index.js';

/** Partial files untouched this long are leftovers of a dead run, in a directory shared by processes. */
export const SHARED_PART_STALE_MS = 60_000;

const PART_SUFFIX = '.part';

/**
 * Audio files in a directory: `<dir>/<job>.mp3`, a job's word timings beside it at
 * `<dir>/<job>.timings.json`, with partial writes of both in `<dir>/.parts/<job>/` (inside the
 * directory, so the rename into place stays on one file system).
 */
export class LocalAudioStorage implements AudioStorage {
  /**
   * @param partStaleMs how long a partial file must have been left alone before it counts as a
   *   leftover. 0 when one process owns the directory (the embedded default); when several processes
   *   share it, a run that lost its queue lock may still be writing its own, so give it time.
   */
  constructor(
    private readonly dir: string,
    private readonly partStaleMs = 0,
  ) {}

  private fileOf(jobId: string): string {
    return join(this.dir, `${jobId}.mp3`);
  }

  private timingsOf(jobId: string): string {
    return join(this.dir, `${jobId}.timings.json`);
  }

  private partsDirOf(jobId: string): string {
    return join(this.dir, '.parts', jobId);
  }

  async createWriter(jobId: string): Promise<AudioWriter> {
    const partsDir = this.partsDirOf(jobId);
    await mkdir(partsDir, { recursive: true });
    const partPath = join(partsDir, `${randomUUID()}${PART_SUFFIX}`);
    const file = await open(partPath, 'wx');
    let size = 0;
    let isOpen = true;
    const close = async () => {
      if (!isOpen) return;
      isOpen = false;
      await file.close();
    };
    return {
      write: async (bytes) => {
        await file.write(bytes);
        size += bytes.byteLength;
      },
      commit: async () => {
        await close();
        await rename(partPath, this.fileOf(jobId));
        // Fails, harmlessly, while another run of the job still has a partial file there.
        await rmdir(partsDir).catch(() => undefined);
        return { size };
      },
      abort: async () => {
        await close().catch(() => undefined);
        await rm(partPath, { force: true });
        await rmdir(partsDir).catch(() => undefined);
      },
    };
  }

  async putFile(jobId: string, path: string): Promise<{ size: number }> {
    // Copied next to its place first, then renamed: readers never see half a file.
    const partsDir = this.partsDirOf(jobId);
    await mkdir(partsDir, { recursive: true });
    const partPath = join(partsDir, `${randomUUID()}${PART_SUFFIX}`);
    try {
      await copyFile(path, partPath);
      const { size } = await stat(partPath);
      await rename(partPath, this.fileOf(jobId));
      return { size };
    } finally {
      await rm(partPath, { force: true }).catch(() => undefined);
      await rmdir(partsDir).catch(() => undefined);
    }
  }

  async stat(jobId: string): Promise<{ size: number } | undefined> {
    const s = await stat(this.fileOf(jobId)).catch(() => undefined);
    return s?.isFile() ? { size: s.size } : undefined;
  }

  async open(jobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    // Opened before the stream is made, so a file deleted meanwhile is "absent", not a stream error.
    const handle = await open(this.fileOf(jobId), 'r').catch(() => undefined);
    if (!handle) return undefined;
    // The stream owns the handle and closes it when it ends, fails or is cancelled.
    return Readable.toWeb(handle.createReadStream({ start: range?.start, end: range?.end })) as ReadableStream<Uint8Array>;
  }

  async putTimings(jobId: string, bytes: Uint8Array): Promise<void> {
    // Written beside the audio's partial files, then renamed: readers see the old file or the new, whole.
    // A run that dies between the two leaves a `.part` file, which the leftover sweep takes as any other.
    const partsDir = this.partsDirOf(jobId);
    await mkdir(partsDir, { recursive: true });
    const partPath = join(partsDir, `${randomUUID()}.timings${PART_SUFFIX}`);
    try {
      await writeFile(partPath, bytes, { flag: 'wx' });
      await rename(partPath, this.timingsOf(jobId));
    } finally {
      await rm(partPath, { force: true }).catch(() => undefined);
      await rmdir(partsDir).catch(() => undefined);
    }
  }

  async readTimings(jobId: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.timingsOf(jobId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(jobId: string): Promise<void> {
    await Promise.all([rm(this.fileOf(jobId), { force: true }), rm(this.timingsOf(jobId), { force: true })]);
  }

  /** A directory has no batch delete: one removal per file. */
  async deleteMany(jobIds: readonly string[]): Promise<void> {
    for (const jobId of jobIds) await this.delete(jobId);
  }

  async removeLeftovers(jobId: string, olderThanMs = this.partStaleMs): Promise<void> {
    const dir = this.partsDirOf(jobId);
    const names = await readdir(dir).catch(() => undefined);
    // The common case (every job that was not interrupted): no directory, nothing more to look at.
    if (names === undefined) return;
    const staleBefore = Date.now() - olderThanMs;
    await Promise.all(
      names
        .filter((n) => n.endsWith(PART_SUFFIX))
        .map(async (n) => {
          const path = join(dir, n);
          // Told to take them all, take them all: a file written within the current millisecond has an
          // mtime (with its fraction) past Date.now(), and would be left behind by the comparison.
          const stale = olderThanMs <= 0 || ((await stat(path).catch(() => undefined))?.mtimeMs ?? Infinity) <= staleBefore;
          // A file another process still holds (EBUSY on NFS) is left for a later clean-up.
          if (stale) await rm(path, { force: true }).catch(() => undefined);
        }),
    );
    // Fails, harmlessly, while another run of the job still has a fresh partial file there.
    await rmdir(dir).catch(() => undefined);
  }

  async listLeftovers(olderThanMs = this.partStaleMs): Promise<string[]> {
    const root = join(this.dir, '.parts');
    const jobs = await readdir(root).catch(() => [] as string[]);
    const staleBefore = Date.now() - olderThanMs;
    const stale = await Promise.all(
      jobs.map(async (jobId) => {
        const names = await readdir(join(root, jobId)).catch(() => [] as string[]);
        const times = await Promise.all(
          names.map((n) =>
            stat(join(root, jobId, n)).then(
              (s) => s.mtimeMs,
              () => Infinity,
            ),
          ),
        );
        // An empty directory is a leftover too (a run died between mkdir and open).
        return olderThanMs <= 0 || times.every((t) => t <= staleBefore) ? jobId : undefined;
      }),
    );
    return stale.filter((id): id is string => id !== undefined);
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await access(this.dir, constants.W_OK);
  }
}
