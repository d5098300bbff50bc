import { AbortMultipartUploadCommand, DeleteObjectsCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { AudioStorageUnavailableError } from '../../ports/index.js';
import { isNotFound, isNotImplemented, type S3Bucket } from './bucket.js';
import type { UploadMarkers } from './markers.js';

/** The most keys one DeleteObjects request takes. */
export const S3_DELETE_BATCH = 1000;

/** Up to this many keys (one job's files: audio, word timings, two captions, the mark of its live audio) are deleted with a DeleteObject each, at once. */
const SINGLE_DELETES = 5;

/**
 * Deletes the objects of `keys`: a few (up to SINGLE_DELETES) with a DeleteObject each, at once, which
 * every S3-protocol server has; more with DeleteObjects of 1000 keys a request, where a key the store
 * could not delete fails the call (naming how many, not why).
 */
export async function deleteObjects(bucket: S3Bucket, keys: readonly string[]): Promise<void> {
  const all = keys.map((key) => bucket.objectKey(key));
  if (all.length <= SINGLE_DELETES) {
    await Promise.all(all.map((key) => bucket.deleteKey(key)));
    return;
  }
  for (let i = 0; i < all.length; i += S3_DELETE_BATCH) {
    const batch = all.slice(i, i + S3_DELETE_BATCH).map((Key) => ({ Key }));
    const result = await bucket.send('deleting', (abortSignal) =>
      bucket.client.send(new DeleteObjectsCommand({ Bucket: bucket.name, Delete: { Objects: batch, Quiet: true } }), { abortSignal }),
    );
    const failed = result.Errors ?? [];
    if (failed.length > 0) {
      throw new AudioStorageUnavailableError(
        `audio store s3://${bucket.name}/${bucket.prefix}: deleting failed for ${failed.length} of ${batch.length} objects (${failed[0]?.Code ?? 'error'})`,
      );
    }
  }
}

/**
 * Removes what dead writers of the keys beginning with `keyPrefix` left: their markers untouched for
 * `olderThanMs` at `now`, and the multipart uploads of those keys begun by then (with no staleness,
 * every multipart upload under the prefix begun by then, even when no marker is stale).
 */
export async function removeLeftovers(bucket: S3Bucket, markers: UploadMarkers, keyPrefix: string, now: number, olderThanMs: number): Promise<void> {
  const staleBefore = now - olderThanMs;
  const stale = (await markers.list(keyPrefix)).filter((m) => m.touchedAt <= staleBefore);
  if (stale.length === 0 && olderThanMs > 0) return;
  const staleKeys = new Set(stale.map((m) => bucket.objectKey(m.key)));
  await abortMultipartUploads(bucket, keyPrefix, staleBefore, (objectKey) => olderThanMs <= 0 || staleKeys.has(objectKey));
  for (const m of stale) await bucket.deleteKey(m.objectKey);
}

/** Aborts the multipart uploads under `keyPrefix` begun by `before` of the keys `wanted` takes; a server without the listing is left to its lifecycle rule. */
async function abortMultipartUploads(bucket: S3Bucket, keyPrefix: string, before: number, wanted: (objectKey: string) => boolean): Promise<void> {
  let listed;
  try {
    listed = await bucket.withDeadline((abortSignal) =>
      bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name, Prefix: `${bucket.prefix}${keyPrefix}` }), { abortSignal }),
    );
  } catch (error) {
    if (isNotImplemented(error)) return;
    throw bucket.unavailable('listing multipart uploads', error);
  }
  for (const u of listed.Uploads ?? []) {
    if (!u.Key || !wanted(u.Key) || !u.UploadId || (u.Initiated && u.Initiated.getTime() > before)) continue;
    await bucket
      .withDeadline((abortSignal) =>
        bucket.client.send(new AbortMultipartUploadCommand({ Bucket: bucket.name, Key: u.Key, UploadId: u.UploadId }), { abortSignal }),
      )
      .catch((error: unknown) => {
        if (!isNotFound(error) && !isNotImplemented(error)) throw bucket.unavailable('aborting an upload', error);
      });
  }
}

/** The keys all of whose markers were touched by `staleBefore`: writers that died. */
export async function listStaleKeys(markers: UploadMarkers, staleBefore: number): Promise<string[]> {
  const byKey = new Map<string, boolean>();
  for (const m of await markers.list()) byKey.set(m.key, (byKey.get(m.key) ?? true) && m.touchedAt <= staleBefore);
  return [...byKey].filter(([, stale]) => stale).map(([key]) => key);
}
