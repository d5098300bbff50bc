import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioSpool, AudioSpoolFile } from '../ports/index.js';

/** Spool files untouched this long belong to a process that died (a live one writes, then uploads within its outage budget). */
export const SPOOL_STALE_MS = 24 * 3600_000;

/**
 * Spool files in a directory of this process's data directory (`<DATA_DIR>/spool`), one per running
 * job, `<job>.<run>.mp3`, removed when the run ends. A process that dies leaves its files: `sweep`
 * (at start) removes those untouched for SPOOL_STALE_MS, which no live run can own, even where several
 * processes share the directory.
 */
export class FileSpool implements AudioSpool {
  constructor(readonly dir: string) {}

  async create(jobId: string): Promise<AudioSpoolFile> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, `${jobId}.${randomUUID()}.mp3`);
    const handle: FileHandle = await open(path, 'wx', 0o600);
    let closed: Promise<void> | undefined;
    let discarded = false;
    const close = () => (closed ??= handle.close());
    return {
      path,
      write: async (bytes) => {
        for (let offset = 0; offset < bytes.byteLength; ) offset += (await handle.write(bytes, offset)).bytesWritten;
      },
      close,
      discard: async () => {
        if (discarded) return;
        discarded = true;
        await close().catch(() => undefined);
        await rm(path, { force: true });
      },
    };
  }

  /** Removes spool files untouched for `olderThanMs`; returns how many. */
  async sweep(olderThanMs = SPOOL_STALE_MS, now = Date.now()): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      if (!name.endsWith('.mp3')) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info || now - info.mtimeMs < olderThanMs) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }
}
