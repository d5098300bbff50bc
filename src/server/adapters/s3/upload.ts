import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat as statFile } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobWriter } from '../../ports/index.js';
import type { S3Bucket } from './bucket.js';
import type { UploadMarkers } from './markers.js';

/** S3's smallest part (except the last): the most a writer holds in memory per part. */
export const S3_PART_BYTES = 5 * 1024 * 1024;

/** The object of `key` streamed from `body` as a multipart upload (parts of 5 MiB, two in flight at most). */
function uploadObject(bucket: S3Bucket, key: string, body: Readable, contentType: string | undefined): Upload {
  return new Upload({
    client: bucket.client,
    params: { Bucket: bucket.name, Key: bucket.objectKey(key), Body: body, ContentType: contentType },
    partSize: S3_PART_BYTES,
    queueSize: 2,
    leavePartsOnError: false,
  });
}

/** What a writer needs beside the bucket: its markers, the clock they are stamped with, and the staleness they are refreshed against. */
export interface WriterContext {
  bucket: S3Bucket;
  markers: UploadMarkers;
  now: () => number;
  staleMs: number;
}

/**
 * A writer of the object of `key`: its bytes stream into a multipart upload, so the object appears whole,
 * at once, on commit and never on abort; its marker is kept fresh while it writes and dropped at the end.
 */
export async function createUploadWriter({ bucket, markers, now, staleMs }: WriterContext, key: string, contentType: string | undefined): Promise<BlobWriter> {
  bucket.objectKey(key);
  const writerId = randomUUID().replace(/-/g, '');
  let touchedAt = now();
  await markers.put(markers.keyOf(key, writerId, touchedAt));
  const dropMarkers = async () => {
    for (const m of await markers.list(key, writerId)) await bucket.deleteKey(m.objectKey);
  };

  const body = new PassThrough({ highWaterMark: 1024 * 1024 });
  const upload = uploadObject(bucket, key, body, contentType);
  let failure: unknown;
  const done = upload.done().then(
    () => undefined,
    (error: unknown) => {
      failure ??= error;
      throw error;
    },
  );
  done.catch(() => undefined);
  let size = 0;
  let state: 'open' | 'committed' | 'aborted' = 'open';

  const write = async (bytes: Uint8Array) => {
    if (state !== 'open') throw new Error('writer is closed');
    if (failure) throw bucket.unavailable('uploading', failure);
    size += bytes.byteLength;
    if (!body.write(bytes)) {
      await Promise.race([new Promise<void>((resolve) => body.once('drain', resolve)), done.then(() => undefined)]).catch((error) => {
        throw bucket.unavailable('uploading', error);
      });
    }
    // A live run keeps its marker fresh, so it is never taken for a dead one.
    const at = now();
    if (at - touchedAt >= staleMs / 4) {
      const previous = touchedAt;
      touchedAt = at;
      await markers.put(markers.keyOf(key, writerId, at));
      for (const m of await markers.list(key, writerId)) if (m.touchedAt !== at && m.touchedAt <= previous) await bucket.deleteKey(m.objectKey);
    }
  };

  const commit = async () => {
    if (state !== 'open') throw new Error('writer is closed');
    state = 'committed';
    body.end();
    try {
      await done;
    } catch (error) {
      throw bucket.unavailable('uploading', error);
    }
    await dropMarkers();
    return { size };
  };

  const abort = async () => {
    if (state === 'aborted') return;
    const wasOpen = state === 'open';
    state = 'aborted';
    if (wasOpen) {
      // Stops the upload: no object appears; a multipart upload already begun is aborted by the SDK.
      await upload.abort().catch(() => undefined);
      body.destroy(new Error('aborted'));
      await done.catch(() => undefined);
    }
    await dropMarkers().catch(() => undefined);
  };

  return { write, commit, abort };
}

/** Uploads a whole local file as the object of `key`. */
export async function uploadFile(bucket: S3Bucket, key: string, path: string, contentType: string | undefined): Promise<{ size: number }> {
  bucket.objectKey(key);
  const { size } = await statFile(path);
  const file = createReadStream(path);
  const upload = uploadObject(bucket, key, file, contentType);
  // No total deadline: a large file on a slow link takes its time; a store that stops answering
  // fails it through the client's idle timeout.
  try {
    await upload.done();
  } catch (error) {
    throw bucket.unavailable('uploading', error);
  } finally {
    file.destroy();
  }
  return { size };
}
