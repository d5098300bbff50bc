import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat as statFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Location } from '../config.js';
import { AudioStorageUnavailableError, type AudioStorage, type AudioWriter, type ByteRange } from '../ports/index.js';

/** S3's smallest part (except the last): the most a writer holds in memory per part. */
export const S3_PART_BYTES = 5 * 1024 * 1024;
/** The most keys one DeleteObjects request takes. */
export const S3_DELETE_BATCH = 1000;
/** Running uploads whose marker is untouched this long are leftovers of a dead run. */
const S3_UPLOAD_STALE_MS = 60_000;

export interface S3AudioStorageOptions extends S3Location {
  client: S3Client;
  /** Default staleness of a running upload (see removeLeftovers). */
  staleMs?: number;
  /** The clock markers are stamped with (tests pass their own). */
  now?: () => number;
  /**
   * Deadline of each of the adapter's own requests, the SDK's retries included (default
   * S3_REQUEST_TIMEOUT_MS): listings, markers, HEAD, deletes, and a download until its answer begins.
   * Audio transfers (the uploads, a download's body) have the client's idle timeout instead.
   */
  requestTimeoutMs?: number;
}

interface Marker {
  key: string;
  jobId: string;
  writerId: string;
  touchedAt: number;
}

/** Connecting to the store (TCP) gives up after this (S3_CONNECT_TIMEOUT_MS). */
const S3_CONNECT_TIMEOUT_MS = 3_000;
/** A request's deadline, and an audio transfer's longest pause (S3_REQUEST_TIMEOUT_MS; see createS3Client). */
const S3_REQUEST_TIMEOUT_MS = 10_000;

export interface S3ClientOptions {
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** TCP connect (default S3_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** The longest a connection may stay silent, while a request is sent or answered (default S3_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

/**
 * The S3 client for the configured endpoint: credentials from the SDK's usual chain, never logged.
 *
 * A store that does not answer fails a request instead of hanging it: a connection must be made within
 * `connectTimeoutMs`, and a connection that stays silent for `requestTimeoutMs` (the socket's idle
 * timeout) fails the request, which the SDK then retries (3 attempts). The timeout is an idle one, not
 * a total one, so that an audio upload (a 5 MiB part, or a whole spooled file) that keeps moving on a
 * slow link is never cut off; the adapter's own small requests get a total deadline on top
 * (S3AudioStorage's `requestTimeoutMs`). The SDK's `requestTimeout` is not used: without
 * `throwOnRequestTimeout` it only prints a warning, and it would be a total limit on uploads too.
 */
export function createS3Client(options: S3ClientOptions): S3Client {
  const config: S3ClientConfig = {
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? false,
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: options.connectTimeoutMs ?? S3_CONNECT_TIMEOUT_MS,
      socketTimeout: options.requestTimeoutMs ?? S3_REQUEST_TIMEOUT_MS,
    },
  };
  if (options.endpoint) config.endpoint = options.endpoint;
  return new S3Client(config);
}

/** A request of the adapter's own that got no answer within its deadline. */
class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function errorName(error: unknown): string {
  return (error as { name?: string })?.name ?? '';
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

const isNotFound = (error: unknown) => ['NoSuchKey', 'NotFound', 'NoSuchUpload'].includes(errorName(error)) || httpStatus(error) === 404;
const isNotImplemented = (error: unknown) => ['NotImplemented', 'MethodNotAllowed'].includes(errorName(error)) || [405, 501].includes(httpStatus(error) ?? 0);

/**
 * Audio as objects in a bucket: `<prefix>/<job>.mp3`. A writer streams into a multipart upload (parts
 * of 5 MiB, two in flight at most), so the object appears whole, at once, on commit and never on abort.
 *
 * Running uploads are tracked by a marker object per writer, `<prefix>/.uploads/<job>/<writer>.<ms>`,
 * its name carrying when it was last touched (refreshed while the writer writes, deleted on commit or
 * abort): a run that died leaves its marker, which is how leftovers are found without the store's
 * multipart listing (which not every S3-protocol server has, and which sees nothing of an upload still
 * buffering its first part). Removing a leftover also aborts the job's multipart uploads initiated
 * before the staleness limit where the server can list them; elsewhere a lifecycle rule
 * (AbortIncompleteMultipartUpload) removes their parts.
 *
 * Failures to reach the store surface as AudioStorageUnavailableError, without the SDK's text; so does
 * a request the store does not answer within its deadline (`requestTimeoutMs`), so that a hung store
 * fails a call (the audio route answers 503) rather than hanging it.
 */
export class S3AudioStorage implements AudioStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly staleMs: number;
  private readonly now: () => number;
  private readonly requestTimeoutMs: number;

  constructor(options: S3AudioStorageOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.prefix = options.prefix ? `${options.prefix}/` : '';
    this.staleMs = options.staleMs ?? S3_UPLOAD_STALE_MS;
    this.now = options.now ?? Date.now;
    this.requestTimeoutMs = options.requestTimeoutMs ?? S3_REQUEST_TIMEOUT_MS;
  }

  keyOf(jobId: string): string {
    return `${this.prefix}${jobId}.mp3`;
  }

  private markersRoot(): string {
    return `${this.prefix}.uploads/`;
  }

  private markerKey(jobId: string, writerId: string, at: number): string {
    return `${this.markersRoot()}${jobId}/${writerId}.${at}`;
  }

  /**
   * Runs one request (`abortSignal` goes to the client's send) within the deadline, retries included.
   * The deadline ends when the request is answered: a download's body is not limited by it.
   */
  private async withDeadline<T>(run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.requestTimeoutMs);
    try {
      return await run(deadline.signal);
    } catch (error) {
      throw deadline.signal.aborted ? new DeadlineExceeded(this.requestTimeoutMs) : error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async send<T>(what: string, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await this.withDeadline(run);
    } catch (error) {
      throw this.unavailable(what, error);
    }
  }

  private unavailable(what: string, error: unknown): Error {
    if (error instanceof AudioStorageUnavailableError) return error;
    if (error instanceof DeadlineExceeded) {
      return new AudioStorageUnavailableError(`audio store s3://${this.bucket}/${this.prefix}: ${what} failed (${error.message})`);
    }
    const status = httpStatus(error);
    // The SDK's message may quote request details; only the error's name (or system code) and status are kept.
    const code = (error as { code?: unknown })?.code;
    const name = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : errorName(error) || 'error';
    return new AudioStorageUnavailableError(`audio store s3://${this.bucket}/${this.prefix}: ${what} failed (${name}${status ? `, HTTP ${status}` : ''})`);
  }

  /** Markers under the root, or of one job (or one writer of it). */
  async listMarkers(jobId?: string, writerId?: string): Promise<Marker[]> {
    const prefix = `${this.markersRoot()}${jobId ? `${jobId}/${writerId ? `${writerId}.` : ''}` : ''}`;
    const markers: Marker[] = [];
    let token: string | undefined;
    do {
      const page = await this.send('listing uploads', (abortSignal) =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }), { abortSignal }),
      );
      for (const o of page.Contents ?? []) {
        const m = /^([^/]+)\/([^/.]+)\.(\d+)$/.exec((o.Key ?? '').slice(this.markersRoot().length));
        if (m) markers.push({ key: o.Key!, jobId: m[1]!, writerId: m[2]!, touchedAt: Number(m[3]) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return markers;
  }

  private async putMarker(key: string): Promise<void> {
    await this.send('recording an upload', (abortSignal) =>
      this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: new Uint8Array(0) }), { abortSignal }),
    );
  }

  private async deleteKey(key: string): Promise<void> {
    await this.send('deleting', (abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }));
  }

  /** Re-stamps a job's markers as touched at `at` (tests age them with it). */
  async restampMarkers(jobId: string, at: (m: Marker) => number): Promise<void> {
    for (const m of await this.listMarkers(jobId)) {
      await this.putMarker(this.markerKey(jobId, m.writerId, at(m)));
      await this.deleteKey(m.key);
    }
  }

  async createWriter(jobId: string): Promise<AudioWriter> {
    const writerId = randomUUID().replace(/-/g, '');
    let touchedAt = this.now();
    await this.putMarker(this.markerKey(jobId, writerId, touchedAt));
    const dropMarkers = async () => {
      for (const m of await this.listMarkers(jobId, writerId)) await this.deleteKey(m.key);
    };

    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.keyOf(jobId), Body: body, ContentType: 'audio/mpeg' },
      partSize: S3_PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
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
      if (state !== 'open') throw new Error('audio writer is closed');
      if (failure) throw this.unavailable('uploading', failure);
      size += bytes.byteLength;
      if (!body.write(bytes)) {
        await Promise.race([new Promise<void>((resolve) => body.once('drain', resolve)), done.then(() => undefined)]).catch((error) => {
          throw this.unavailable('uploading', error);
        });
      }
      // A live run keeps its marker fresh, so it is never taken for a dead one.
      const now = this.now();
      if (now - touchedAt >= this.staleMs / 4) {
        const previous = touchedAt;
        touchedAt = now;
        await this.putMarker(this.markerKey(jobId, writerId, now));
        for (const m of await this.listMarkers(jobId, writerId)) if (m.touchedAt !== now && m.touchedAt <= previous) await this.deleteKey(m.key);
      }
    };

    const commit = async () => {
      if (state !== 'open') throw new Error('audio writer is closed');
      state = 'committed';
      body.end();
      try {
        await done;
      } catch (error) {
        throw this.unavailable('uploading', error);
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

  async putFile(jobId: string, path: string): Promise<{ size: number }> {
    const { size } = await statFile(path);
    const file = createReadStream(path);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.keyOf(jobId), Body: file, ContentType: 'audio/mpeg' },
      partSize: S3_PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    // No total deadline: a large file on a slow link takes its time; a store that stops answering
    // fails it through the client's idle timeout.
    try {
      await upload.done();
    } catch (error) {
      throw this.unavailable('uploading', error);
    } finally {
      file.destroy();
    }
    return { size };
  }

  async stat(jobId: string): Promise<{ size: number } | undefined> {
    try {
      const head = await this.withDeadline((abortSignal) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(jobId) }), { abortSignal }),
      );
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw this.unavailable('reading', error);
    }
  }

  async open(jobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    try {
      // The deadline is the answer's; the body then streams under the client's idle timeout.
      const got = await this.withDeadline((abortSignal) =>
        this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(jobId), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
          { abortSignal },
        ),
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
      throw this.unavailable('reading', error);
    }
  }

  async delete(jobId: string): Promise<void> {
    // Deleting an absent key is not an error in S3.
    await this.deleteKey(this.keyOf(jobId));
  }

  /** DeleteObjects, 1000 keys a request; a key the store could not delete fails the call (naming how many, not why). */
  async deleteMany(jobIds: readonly string[]): Promise<void> {
    for (let i = 0; i < jobIds.length; i += S3_DELETE_BATCH) {
      const keys = jobIds.slice(i, i + S3_DELETE_BATCH).map((id) => ({ Key: this.keyOf(id) }));
      const result = await this.send('deleting', (abortSignal) =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }), { abortSignal }),
      );
      const failed = result.Errors ?? [];
      if (failed.length > 0) {
        throw new AudioStorageUnavailableError(
          `audio store s3://${this.bucket}/${this.prefix}: deleting failed for ${failed.length} of ${keys.length} objects (${failed[0]?.Code ?? 'error'})`,
        );
      }
    }
  }

  async removeLeftovers(jobId: string, olderThanMs = this.staleMs): Promise<void> {
    const staleBefore = this.now() - olderThanMs;
    const stale = (await this.listMarkers(jobId)).filter((m) => m.touchedAt <= staleBefore);
    if (stale.length === 0 && olderThanMs > 0) return;
    await this.abortMultipartUploads(jobId, staleBefore);
    for (const m of stale) await this.deleteKey(m.key);
  }

  /** Aborts the job's multipart uploads begun by `before`; a server without the listing is left to its lifecycle rule. */
  private async abortMultipartUploads(jobId: string, before: number): Promise<void> {
    const key = this.keyOf(jobId);
    let listed;
    try {
      listed = await this.withDeadline((abortSignal) =>
        this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: key }), { abortSignal }),
      );
    } catch (error) {
      if (isNotImplemented(error)) return;
      throw this.unavailable('listing multipart uploads', error);
    }
    for (const u of listed.Uploads ?? []) {
      if (u.Key !== key || !u.UploadId || (u.Initiated && u.Initiated.getTime() > before)) continue;
      await this.withDeadline((abortSignal) =>
        this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: u.UploadId }), { abortSignal }),
      ).catch((error: unknown) => {
        if (!isNotFound(error) && !isNotImplemented(error)) throw this.unavailable('aborting an upload', error);
      });
    }
  }

  async listLeftovers(olderThanMs = this.staleMs): Promise<string[]> {
    const staleBefore = this.now() - olderThanMs;
    const byJob = new Map<string, boolean>();
    for (const m of await this.listMarkers()) byJob.set(m.jobId, (byJob.get(m.jobId) ?? true) && m.touchedAt <= staleBefore);
    return [...byJob].filter(([, stale]) => stale).map(([jobId]) => jobId);
  }

  async ping(): Promise<void> {
    await this.send(`reaching bucket ${this.bucket}`, (abortSignal) => this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal }));
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
