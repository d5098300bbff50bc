import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { AudioStorageUnavailableError, isBlobKey } from '../../ports/index.js';

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

/** The object (or multipart upload) is not there. */
export const isNotFound = (error: unknown) => ['NoSuchKey', 'NotFound', 'NoSuchUpload'].includes(errorName(error)) || httpStatus(error) === 404;
/** The server does not have this request (not every S3-protocol server lists multipart uploads). */
export const isNotImplemented = (error: unknown) =>
  ['NotImplemented', 'MethodNotAllowed'].includes(errorName(error)) || [405, 501].includes(httpStatus(error) ?? 0);

/**
 * The adapter's requests to its bucket, under its prefix: each within a deadline (`requestTimeoutMs`,
 * the SDK's retries included), and their failures told as AudioStorageUnavailableError without the
 * SDK's text.
 */
export class S3Bucket {
  /** The prefix with its trailing slash, or empty. */
  readonly prefix: string;

  constructor(
    readonly client: S3Client,
    readonly name: string,
    prefix: string | undefined,
    private readonly requestTimeoutMs: number,
  ) {
    this.prefix = prefix ? `${prefix}/` : '';
  }

  /** The object key of a storage key, under the prefix; a key the port does not take is refused. */
  objectKey(key: string): string {
    if (!isBlobKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return `${this.prefix}${key}`;
  }

  /**
   * Runs one request (`abortSignal` goes to the client's send) within the deadline, retries included.
   * The deadline ends when the request is answered: a download's body is not limited by it.
   */
  async withDeadline<T>(run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
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

  /** Runs one request within the deadline; any failure is the store being unavailable for `what`. */
  async send<T>(what: string, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await this.withDeadline(run);
    } catch (error) {
      throw this.unavailable(what, error);
    }
  }

  /** The failure of `what` as AudioStorageUnavailableError, naming the error (or system code) and HTTP status only. */
  unavailable(what: string, error: unknown): Error {
    if (error instanceof AudioStorageUnavailableError) return error;
    if (error instanceof DeadlineExceeded) {
      return new AudioStorageUnavailableError(`audio store s3://${this.name}/${this.prefix}: ${what} failed (${error.message})`);
    }
    const status = httpStatus(error);
    // The SDK's message may quote request details; only the error's name (or system code) and status are kept.
    const code = (error as { code?: unknown })?.code;
    const name = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : errorName(error) || 'error';
    return new AudioStorageUnavailableError(`audio store s3://${this.name}/${this.prefix}: ${what} failed (${name}${status ? `, HTTP ${status}` : ''})`);
  }

  async deleteKey(key: string): Promise<void> {
    await this.send('deleting', (abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket: this.name, Key: key }), { abortSignal }));
  }
}
