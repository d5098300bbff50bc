/**
 * The S3 blob storage (AUDIO_STORE=s3://…), the package's `@agent-tts/server/s3` export: loaded only
 * by those who use an object store, since it loads the AWS SDK.
 */
export { S3BlobStorage } from '../s3-blob-storage.js';
export { createS3Client } from './client.js';
