import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Location } from '../config.js';
import type { AudioStorage, AudioWriter, ByteRange } from '../ports/index.js';
import { S3Bucket } from './s3/bucket.js';
import { S3_REQUEST_TIMEOUT_MS } from './s3/client.js';
import { deleteAudios, listStaleJobs, removeJobLeftovers } from './s3/deletion.js';
import { type Marker, UploadMarkers } from './s3/markers.js';
import { openAudio, statAudio } from './s3/read.js';
import { putTimings, readTimings } from './s3/timings.js';
import { createUploadWriter, uploadFile } from './s3/upload.js';

export { createS3Client } from './s3/client.js';
export { S3_DELETE_BATCH } from './s3/deletion.js';
export { S3_PART_BYTES } from './s3/upload.js';

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

/**
 * Audio as objects in a bucket: `<prefix>/<job>.mp3`, and a job's word timings beside it,
 * `<prefix>/<job>.timings.json` (one PutObject). A writer streams into a multipart upload (parts
 * of 5 MiB, two in flight at most), so the object appears whole, at once, on commit and never on abort
 * (s3/upload.ts).
 *
 * Running uploads are tracked by a marker object per writer, `<prefix>/.uploads/<job>/<writer>.<ms>`,
 * its name carrying when it was last touched (refreshed while the writer writes, deleted on commit or
 * abort; s3/markers.ts): a run that died leaves its marker, which is how leftovers are found without
 * the store's multipart listing (which not every S3-protocol server has, and which sees nothing of an
 * upload still buffering its first part). Removing a leftover also aborts the job's multipart uploads
 * initiated before the staleness limit where the server can list them; elsewhere a lifecycle rule
 * (AbortIncompleteMultipartUpload) removes their parts (s3/deletion.ts).
 *
 * Failures to reach the store surface as AudioStorageUnavailableError, without the SDK's text; so does
 * a request the store does not answer within its deadline (`requestTimeoutMs`), so that a hung store
 * fails a call (the audio route answers 503) rather than hanging it (s3/bucket.ts).
 */
export class S3AudioStorage implements AudioStorage {
  private readonly bucket: S3Bucket;
  private readonly markers: UploadMarkers;
  private readonly staleMs: number;
  private readonly now: () => number;

  constructor(options: S3AudioStorageOptions) {
    this.bucket = new S3Bucket(options.client, options.bucket, options.prefix, options.requestTimeoutMs ?? S3_REQUEST_TIMEOUT_MS);
    this.markers = new UploadMarkers(this.bucket);
    this.staleMs = options.staleMs ?? S3_UPLOAD_STALE_MS;
    this.now = options.now ?? Date.now;
  }

  keyOf(jobId: string): string {
    return this.bucket.keyOf(jobId);
  }

  /** Markers under the root, or of one job (or one writer of it). */
  async listMarkers(jobId?: string, writerId?: string): Promise<Marker[]> {
    return this.markers.list(jobId, writerId);
  }

  /** Re-stamps a job's markers as touched at `at` (tests age them with it). */
  async restampMarkers(jobId: string, at: (m: Marker) => number): Promise<void> {
    await this.markers.restamp(jobId, at);
  }

  async createWriter(jobId: string): Promise<AudioWriter> {
    return createUploadWriter({ bucket: this.bucket, markers: this.markers, now: this.now, staleMs: this.staleMs }, jobId);
  }

  async putFile(jobId: string, path: string): Promise<{ size: number }> {
    return uploadFile(this.bucket, jobId, path);
  }

  async stat(jobId: string): Promise<{ size: number } | undefined> {
    return statAudio(this.bucket, jobId);
  }

  async open(jobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    return openAudio(this.bucket, jobId, range);
  }

  async putTimings(jobId: string, bytes: Uint8Array): Promise<void> {
    await putTimings(this.bucket, jobId, bytes);
  }

  async readTimings(jobId: string): Promise<Uint8Array | undefined> {
    return readTimings(this.bucket, jobId);
  }

  async delete(jobId: string): Promise<void> {
    // Deleting an absent key is not an error in S3.
    await Promise.all([this.bucket.deleteKey(this.bucket.keyOf(jobId)), this.bucket.deleteKey(this.bucket.timingsKeyOf(jobId))]);
  }

  /** DeleteObjects of audio and word timings, 1000 keys a request; a key the store could not delete fails the call (naming how many, not why). */
  async deleteMany(jobIds: readonly string[]): Promise<void> {
    await deleteAudios(this.bucket, jobIds);
  }

  async removeLeftovers(jobId: string, olderThanMs = this.staleMs): Promise<void> {
    await removeJobLeftovers(this.bucket, this.markers, jobId, this.now(), olderThanMs);
  }

  async listLeftovers(olderThanMs = this.staleMs): Promise<string[]> {
    return listStaleJobs(this.markers, this.now() - olderThanMs);
  }

  async ping(): Promise<void> {
    await this.bucket.send(`reaching bucket ${this.bucket.name}`, (abortSignal) =>
      this.bucket.client.send(new HeadBucketCommand({ Bucket: this.bucket.name }), { abortSignal }),
    );
  }
}
