import { randomUUID } from 'node:crypto';
import { access, copyFile, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { type BlobSource, type BlobStorage, type BlobWriter, type ByteRange, isBlobKey } from '../ports/index.js';

/** Partial files untouched this long are leftovers of a dead writer, in a directory shared by processes. */
export const SHARED_PART_STALE_MS = 60_000;

const PART_SUFFIX = '.part';
/** At most this many files are removed at once by `delete`. */
const DELETE_CONCURRENCY = 16;

/**
 * Files in a directory: a key's at `<dir>/<key>` (a key's `/` is a subdirectory), with partial writes in
 * `<dir>/.parts/<encoded key>/` (inside the directory, so the rename into place stays on one file
 * system; the key encoded as a URI component, so one directory per key). Keys are checked (isBlobKey):
 * none reaches outside the directory or into `.parts`.
 */
export class LocalBlobStorage implements BlobStorage {
  /**
   * @param partStaleMs how long a partial file must have been left alone before it counts as a
   *   leftover. 0 when one process owns the directory (the embedded default); when several processes
   *   share it, a writer that lost its queue lock may still be writing its own, so give it time.
   */
  constructor(
    private readonly dir: string,
    private readonly partStaleMs = 0,
  ) {}

  private pathOf(key: string): string {
    if (!isBlobKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return join(this.dir, key);
  }

  private get partsRoot(): string {
    return join(this.dir, '.parts');
  }

  /** A new partial file of `key` (its directory made), and the path it is renamed to. */
  private async partOf(key: string): Promise<{ partsDir: string; partPath: string; target: string }> {
    const target = this.pathOf(key);
    const partsDir = join(this.partsRoot, encodeURIComponent(key));
    await mkdir(partsDir, { recursive: true });
    if (key.includes('/')) await mkdir(dirname(target), { recursive: true });
    return { partsDir, partPath: join(partsDir, `${randomUUID()}${PART_SUFFIX}`), target };
  }

  async createWriter(key: string): Promise<BlobWriter> {
    const { partsDir, partPath, target } = await this.partOf(key);
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
        await rename(partPath, target);
        // Fails, harmlessly, while another writer of the key still has a partial file there.
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

  async put(key: string, source: BlobSource): Promise<{ size: number }> {
    // Written beside the writers' partial files, then renamed: readers see the old file or the new, whole.
    // A put that dies between the two leaves a `.part` file, which the leftover sweep takes as any other.
    const { partsDir, partPath, target } = await this.partOf(key);
    try {
      if (source instanceof Uint8Array) await writeFile(partPath, source, { flag: 'wx' });
      else await copyFile(source.path, partPath);
      const { size } = await stat(partPath);
      await rename(partPath, target);
      return { size };
    } finally {
      await rm(partPath, { force: true }).catch(() => undefined);
      await rmdir(partsDir).catch(() => undefined);
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const s = await stat(this.pathOf(key)).catch(() => undefined);
    return s?.isFile() ? { size: s.size } : undefined;
  }

  async open(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    const path = this.pathOf(key);
    // Opened before the stream is made, so a file deleted meanwhile is "absent", not a stream error.
    const handle = await open(path, 'r').catch(() => undefined);
    if (!handle) return undefined;
    // The stream owns the handle and closes it when it ends, fails or is cancelled.
    return Readable.toWeb(handle.createReadStream({ start: range?.start, end: range?.end })) as ReadableStream<Uint8Array>;
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** A directory has no batch delete: one removal per file, a few at a time. */
  async delete(keys: readonly string[]): Promise<void> {
    const paths = keys.map((key) => this.pathOf(key));
    for (let i = 0; i < paths.length; i += DELETE_CONCURRENCY) {
      await Promise.all(paths.slice(i, i + DELETE_CONCURRENCY).map((path) => rm(path, { force: true })));
    }
  }

  async listLeftovers(olderThanMs = this.partStaleMs): Promise<string[]> {
    const names = await readdir(this.partsRoot).catch(() => [] as string[]);
    const staleBefore = Date.now() - olderThanMs;
    const stale = await Promise.all(
      names.map(async (name) => {
        const dir = join(this.partsRoot, name);
        const times = await Promise.all(
          (await readdir(dir).catch(() => [] as string[])).map((n) =>
            stat(join(dir, n)).then(
              (s) => s.mtimeMs,
              () => Infinity,
            ),
          ),
        );
        // An empty directory is a leftover too (a writer died between mkdir and open).
        return olderThanMs <= 0 || times.every((t) => t <= staleBefore) ? decodeKey(name) : undefined;
      }),
    );
    return stale.filter((key): key is string => key !== undefined);
  }

  async removeLeftovers(keyPrefix: string, olderThanMs = this.partStaleMs): Promise<void> {
    const names = await readdir(this.partsRoot).catch(() => undefined);
    // The common case (nothing was interrupted): no partial writes at all, nothing more to look at.
    if (names === undefined) return;
    const staleBefore = Date.now() - olderThanMs;
    const mine = names.filter((name) => decodeKey(name)?.startsWith(keyPrefix));
    await Promise.all(mine.map((name) => removeStaleParts(join(this.partsRoot, name), olderThanMs, staleBefore)));
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await access(this.dir, constants.W_OK);
  }
}

/** The key a directory of partial writes belongs to; undefined for a name no key encodes to. */
function decodeKey(name: string): string | undefined {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

/** Removes the partial files of one key's directory untouched since `staleBefore`, then the directory if empty. */
async function removeStaleParts(dir: string, olderThanMs: number, staleBefore: number): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
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
  // Fails, harmlessly, while another writer of the key still has a fresh partial file there.
  await rmdir(dir).catch(() => undefined);
}
