import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Connecting to the store (TCP) gives up after this (S3_CONNECT_TIMEOUT_MS). */
const S3_CONNECT_TIMEOUT_MS = 3_000;
/** A request's deadline, and an audio transfer's longest pause (S3_REQUEST_TIMEOUT_MS; see createS3Client). */
export const S3_REQUEST_TIMEOUT_MS = 10_000;

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
 * (S3BlobStorage's `requestTimeoutMs`). The SDK's `requestTimeout` is not used: without
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
