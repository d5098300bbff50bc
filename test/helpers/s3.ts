import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/**
 * A real S3-protocol server (s3rver, an npm dev dependency) on a free loopback port, with its own data
 * directory and bucket. s3rver's fixed credentials are given to the SDK through the environment.
 */
export interface S3Server {
  endpoint: string;
  bucket: string;
  /** The variables a process needs to use this server (AUDIO_STORE aside). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

export async function startS3Server(bucket = 'agent-tts-audio'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'agent-tts-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  let address: { port: number };
  try {
    address = (await server.run()) as unknown as { port: number };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw new Error(`the S3 server (s3rver) could not start: ${(error as Error).message}`);
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    env: { ...S3RVER_CREDENTIALS, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true' },
    close: async () => {
      await server.close().catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
