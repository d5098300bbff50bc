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
  /** Stops answering (the port is closed; the data is kept), as a store that went down. */
  stop(): Promise<void>;
  /** Answers again on the same port, with the same data. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

export async function startS3Server(bucket = 'agent-tts-audio'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'agent-tts-s3rver-'));
  const run = async (port: number) => {
    const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket }] });
    try {
      return { server, port: ((await server.run()) as unknown as { port: number }).port };
    } catch (error) {
      throw new Error(`the S3 server (s3rver) could not start: ${(error as Error).message}`);
    }
  };
  let running: Awaited<ReturnType<typeof run>> | undefined;
  try {
    running = await run(0);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const port = running.port;
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await running?.server.close().catch(() => undefined);
    running = undefined;
  };
  return {
    endpoint,
    bucket,
    env: { ...S3RVER_CREDENTIALS, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true' },
    stop,
    start: async () => {
      running ??= await run(port);
    },
    close: async () => {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
