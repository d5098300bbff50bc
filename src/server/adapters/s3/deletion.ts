import { AbortMultipartUploadCommand, DeleteObjectsCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { AudioStorageUnavailableError } from '../../ports/index.js';
import { isNotFound, isNotImplemented, type S3Bucket } from './bucket.js';
import type { UploadMarkers } from './markers.js';

/** The most keys one DeleteObjects request takes. */
export const S3_DELETE_BATCH = 1000;

/**
 * DeleteObjects of the jobs' audio and word timings (two keys a job), 1000 keys a request; a key the
 * store could not delete fails the call (naming how many, not why).
 */
export async function deleteAudios(bucket: S3Bucket, jobIds: readonly string[]): Promise<void> {
  const all = jobIds.flatMap((id) => [bucket.keyOf(id), bucket.timingsKeyOf(id)]);
  for (let i = 0; i < all.length; i += S3_DELETE_BATCH) {
    const keys = all.slice(i, i + S3_DELETE_BATCH).map((Key) => ({ Key }));
    const result = await bucket.send('deleting', (abortSignal) =>
      bucket.client.send(new DeleteObjectsCommand({ Bucket: bucket.name, Delete: { Objects: keys, Quiet: true } }), { abortSignal }),
    );
    const failed = result.Errors ?? [];
    if (failed.length > 0) {
      throw new AudioStorageUnavailableError(
        `audio store s3://${bucket.name}/${bucket.prefix}: deleting failed for ${failed.length} of ${keys.length} objects (${failed[0]?.Code ?? 'error'})`,
      );
    }
  }
}

/**
 * Removes what a dead run of a job left: its markers untouched for `olderThanMs` at `now`, and the
 * job's multipart uploads begun by then (with no staleness, those even when no marker is stale).
 */
export async function removeJobLeftovers(bucket: S3Bucket, markers: UploadMarkers, jobId: string, now: number, olderThanMs: number): Promise<void> {
  const staleBefore = now - olderThanMs;
  const stale = (await markers.list(jobId)).filter((m) => m.touchedAt <= staleBefore);
  if (stale.length === 0 && olderThanMs > 0) return;
  await abortMultipartUploads(bucket, jobId, staleBefore);
  for (const m of stale) await bucket.deleteKey(m.key);
}

/** Aborts the job's multipart uploads begun by `before`; a server without the listing is left to its lifecycle rule. */
async function abortMultipartUploads(bucket: S3Bucket, jobId: string, before: number): Promise<void> {
  const key = bucket.keyOf(jobId);
  let listed;
  try {
    listed = await bucket.withDeadline((abortSignal) =>
      bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name, Prefix: key }), { abortSignal }),
    );
  } catch (error) {
    if (isNotImplemented(error)) return;
    throw bucket.unavailable('listing multipart uploads', error);
  }
  for (const u of listed.Uploads ?? []) {
    if (u.Key !== key || !u.UploadId || (u.Initiated && u.Initiated.getTime() > before)) continue;
    await bucket
      .withDeadline((abortSignal) =>
        bucket.client.send(new AbortMultipartUploadCommand({ Bucket: bucket.name, Key: key, UploadId: u.UploadId }), { abortSignal }),
      )
      .catch((error: unknown) => {
        if (!isNotFound(error) && !isNotImplemented(error)) throw bucket.unavailable('aborting an upload', error);
      });
  }
}

/** The jobs all of whose markers were touched by `staleBefore`: runs that died. */
export async function listStaleJobs(markers: UploadMarkers, staleBefore: number): Promise<string[]> {
  const byJob = new Map<string, boolean>();
  for (const m of await markers.list()) byJob.set(m.jobId, (byJob.get(m.jobId) ?? true) && m.touchedAt <= staleBefore);
  return [...byJob].filter(([, stale]) => stale).map(([jobId]) => jobId);
}
