import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { LiveAudioFile, LiveAudioFiles, LiveAudioReader } from '../ports/index.js';
import { FileSpool } from './file-spool.js';

/**
 * Live files in a directory of this process's data directory (`<DATA_DIR>/live`), one per running job,
 * `<job>.<run>.mp3`, removed when the run ends; a listener reads through a handle of its own, which
 * outlives the removal (POSIX). A process that dies leaves its files: `sweep` at start removes the stale
 * ones, as for the spool.
 */
export class LocalLiveAudioFiles implements LiveAudioFiles {
  constructor(readonly dir: string) {}

  async create(jobId: string): Promise<LiveAudioFile> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, `${jobId}.${randomUUID()}.mp3`);
    const handle: FileHandle = await open(path, 'wx', 0o600);
    let discarded = false;
    return {
      write: async (bytes) => {
        for (let offset = 0; offset < bytes.byteLength; ) offset += (await handle.write(bytes, offset)).bytesWritten;
      },
      openReader: async () => {
        if (discarded) return undefined;
        const reader = await open(path, 'r').catch(() => undefined);
        return reader && readerOf(reader);
      },
      discard: async () => {
        if (discarded) return;
        discarded = true;
        await handle.close().catch(() => undefined);
        await rm(path, { force: true });
      },
    };
  }

  /** Removes live files untouched for a day (a dead process's); returns how many. */
  sweep(): Promise<number> {
    return new FileSpool(this.dir).sweep();
  }
}

function readerOf(handle: FileHandle): LiveAudioReader {
  let closed: Promise<void> | undefined;
  return {
    async read(position, length) {
      const buffer = new Uint8Array(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === length ? buffer : buffer.subarray(0, filled);
    },
    close: () => (closed ??= handle.close().catch(() => undefined)),
  };
}
