import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Location } from '../config/s3.js';
import type { BlobSource, BlobStorage, BlobWriter, ByteRange } from '../ports/index.js';
import { S3Bucket } from './s3/bucket.js';
import { S3_REQUEST_TIMEOUT_MS } from './s3/client.js';
import { deleteObjects, listStaleKeys, removeLeftovers } from './s3/deletion.js';
import { type Marker, UploadMarkers } from './s3/markers.js';
import { openObject, statObject } from './s3/read.js';
import { createUploadWriter, uploadFile } from './s3/upload.js';
import { putBytes, readObject } from './s3/whole.js';

/** Running uploads whose marker is untouched this long are leftovers of a dead writer. */
const S3_UPLOAD_STALE_MS = 60_000;

export interface S3BlobStorageOptions extends S3Location {
  client: S3Client;
  /** Default staleness of a running upload (see removeLeftovers). */
  staleMs?: number;
  /** The clock markers are stamped with (tests pass their own). */
  now?: () => number;
  /**
   * Deadline of each of the adapter's own requests, the SDK's retries included (default
   * S3_REQUEST_TIMEOUT_MS): listings, markers, HEAD, deletes, whole reads and small puts, and a download
   * until its answer begins. Streamed transfers (the uploads, a download's body) have the client's idle
   * timeout instead.
   */
  requestTimeoutMs?: number;
}

/**
 * Files as objects in a bucket, a key's at `<prefix>/<key>`. A writer streams into a multipart upload
 * (parts of 5 MiB, two in flight at most), so the object appears whole, at once, on commit and never on
 * abort (s3/upload.ts); `put` of bytes is one PutObject, of a local file an upload as a writer's.
 *
 * Running uploads are tracked by a marker object per writer, `<prefix>/.uploads/<key>/<writer>.<ms>`,
 * its name carrying when it was last touched (refreshed while the writer writes, deleted on commit or
 * abort; s3/markers.ts): a writer that died leaves its marker, which is how leftovers are found without
 * the store's multipart listing (which not every S3-protocol server has, and which sees nothing of an
 * upload still buffering its first part). Removing a leftover also aborts the key's multipart uploads
 * initiated before the staleness limit where the server can list them; elsewhere a lifecycle rule
 * (AbortIncompleteMultipartUpload) removes their parts (s3/deletion.ts).
 *
 * Failures to reach the store surface as AudioStorageUnavailableError, without the SDK's text; so does
 * a request the store does not answer within its deadline (`requestTimeoutMs`), so that a hung store
 * fails a call (the audio route answers 503) rather than hanging it (s3/bucket.ts).
 */
export class S3BlobStorage implements BlobStorage {
  private readonly bucket: S3Bucket;
  private readonly markers: UploadMarkers;
  private readonly staleMs: number;
  private readonly now: () => number;

  constructor(options: S3BlobStorageOptions) {
    this.bucket = new S3Bucket(options.client, options.bucket, options.prefix, options.requestTimeoutMs ?? S3_REQUEST_TIMEOUT_MS);
    this.markers = new UploadMarkers(this.bucket);
    this.staleMs = options.staleMs ?? S3_UPLOAD_STALE_MS;
    this.now = options.now ?? Date.now;
  }

  /** The object key of a storage key. */
  objectKey(key: string): string {
    return this.bucket.objectKey(key);
  }

  /** Markers of the keys that begin with `keyPrefix` (all when omitted), or of one writer of the key `keyPrefix`. */
  async listMarkers(keyPrefix?: string, writerId?: string): Promise<Marker[]> {
    return this.markers.list(keyPrefix, writerId);
  }

  /** Re-stamps the markers of the keys that begin with `keyPrefix` as touched at `at` (tests age them with it). */
  async restampMarkers(keyPrefix: string, at: (m: Marker) => number): Promise<void> {
    await this.markers.restamp(keyPrefix, at);
  }

  async createWriter(key: string, contentType?: string): Promise<BlobWriter> {
    return createUploadWriter({ bucket: this.bucket, markers: this.markers, now: this.now, staleMs: this.staleMs }, key, contentType);
  }

  async put(key: string, source: BlobSource, contentType?: string): Promise<{ size: number }> {
    return source instanceof Uint8Array ? putBytes(this.bucket, key, source, contentType) : uploadFile(this.bucket, key, source.path, contentType);
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    return statObject(this.bucket, key);
  }

  async open(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    return openObject(this.bucket, key, range);
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    return readObject(this.bucket, key);
  }

  /** Deleting an absent key is not an error in S3. Up to five keys (a job's files) are a DeleteObject each, more are DeleteObjects of up to 1000 keys each. */
  async delete(keys: readonly string[]): Promise<void> {
    await deleteObjects(this.bucket, keys);
  }

  async listLeftovers(olderThanMs = this.staleMs): Promise<string[]> {
    return listStaleKeys(this.markers, this.now() - olderThanMs);
  }

  async removeLeftovers(keyPrefix: string, olderThanMs = this.staleMs): Promise<void> {
    await removeLeftovers(this.bucket, this.markers, keyPrefix, this.now(), olderThanMs);
  }

  async ping(): Promise<void> {
    await this.bucket.send(`reaching bucket ${this.bucket.name}`, (abortSignal) =>
      this.bucket.client.send(new HeadBucketCommand({ Bucket: this.bucket.name }), { abortSignal }),
    );
  }
}
