import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import type { ByteRange } from '../../ports/index.js';
import { isNotFound, type S3Bucket } from './bucket.js';

/** The size of the object of `key` (HeadObject: metadata only), or undefined when there is none. */
export async function statObject(bucket: S3Bucket, key: string): Promise<{ size: number } | undefined> {
  const objectKey = bucket.objectKey(key);
  try {
    const head = await bucket.withDeadline((abortSignal) =>
      bucket.client.send(new HeadObjectCommand({ Bucket: bucket.name, Key: objectKey }), { abortSignal }),
    );
    return { size: head.ContentLength ?? 0 };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw bucket.unavailable(`reading ${key}`, error);
  }
}

/** The object of `key`, or the bytes `range` names of it; undefined when there is none. */
export async function openObject(bucket: S3Bucket, key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
  const objectKey = bucket.objectKey(key);
  try {
    // The deadline is the answer's; the body then streams under the client's idle timeout.
    const got = await bucket.withDeadline((abortSignal) =>
      bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: objectKey, Range: range ? `bytes=${range.start}-${range.end}` : undefined }), {
        abortSignal,
      }),
    );
    if (!got.Body) return undefined;
    const stream = got.Body.transformToWebStream() as ReadableStream<Uint8Array>;
    // HTTP lets a server ignore a Range (a 200 with the whole object; s3rver does so for bytes=0-0):
    // the wanted bytes are then cut from the whole.
    const wanted = range ? range.end - range.start + 1 : undefined;
    if (range && wanted !== undefined && (!got.ContentRange || got.ContentLength !== wanted)) {
      return stream.pipeThrough(sliceBytes(range.start, wanted));
    }
    return stream;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw bucket.unavailable(`reading ${key}`, error);
  }
}

/** Passes on `length` bytes starting at `start` of the stream, then stops. */
function sliceBytes(start: number, length: number): TransformStream<Uint8Array, Uint8Array> {
  let offset = 0;
  let left = length;
  return new TransformStream({
    transform(chunk, controller) {
      const from = Math.max(0, start - offset);
      offset += chunk.byteLength;
      if (left <= 0 || from >= chunk.byteLength) return;
      const piece = chunk.subarray(from, from + left);
      left -= piece.byteLength;
      controller.enqueue(piece);
    },
  });
}
