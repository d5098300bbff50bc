import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { isNotFound, type S3Bucket } from './bucket.js';

/** Puts a job's word timings at `<prefix><job>.timings.json`: one PutObject, so the object appears whole or not at all. */
export async function putTimings(bucket: S3Bucket, jobId: string, bytes: Uint8Array): Promise<void> {
  await bucket.send('saving word timings', (abortSignal) =>
    bucket.client.send(new PutObjectCommand({ Bucket: bucket.name, Key: bucket.timingsKeyOf(jobId), Body: bytes, ContentType: 'application/json' }), {
      abortSignal,
    }),
  );
}

/**
 * A job's word timings, or undefined when it has none. The file is small enough to be read whole, so
 * its body is read within the request's deadline too: a store that stalls mid-body fails the call.
 */
export async function readTimings(bucket: S3Bucket, jobId: string): Promise<Uint8Array | undefined> {
  try {
    return await bucket.withDeadline(async (abortSignal) => {
      const got = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: bucket.timingsKeyOf(jobId) }), { abortSignal });
      return got.Body ? await got.Body.transformToByteArray() : undefined;
    });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw bucket.unavailable('reading word timings', error);
  }
}
