import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { isNotFound, type S3Bucket } from './bucket.js';

/** Puts bytes as the object of `key`: one PutObject, so the object appears whole or not at all. */
export async function putBytes(bucket: S3Bucket, key: string, bytes: Uint8Array, contentType?: string): Promise<{ size: number }> {
  const objectKey = bucket.objectKey(key);
  await bucket.send(`saving ${key}`, (abortSignal) =>
    bucket.client.send(new PutObjectCommand({ Bucket: bucket.name, Key: objectKey, Body: bytes, ContentType: contentType }), { abortSignal }),
  );
  return { size: bytes.byteLength };
}

/**
 * The object of `key`, whole, or undefined when there is none. Its body is read within the request's
 * deadline too: a store that stalls mid-body fails the call.
 */
export async function readObject(bucket: S3Bucket, key: string): Promise<Uint8Array | undefined> {
  const objectKey = bucket.objectKey(key);
  try {
    return await bucket.withDeadline(async (abortSignal) => {
      const got = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: objectKey }), { abortSignal });
      return got.Body ? await got.Body.transformToByteArray() : undefined;
    });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw bucket.unavailable(`reading ${key}`, error);
  }
}
