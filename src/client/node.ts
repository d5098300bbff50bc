import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { AgentTtsClient } from './client.js';
import type { CallOptions } from './options.js';
import type { CaptionFormat } from './signed-download.js';
import type { JobWithTimings } from './signed-download.js';
import type { CompletedJob } from './types.js';

/** Node-only helpers of the client: saving audio and captions to files, and writing audio to streams. */

export interface SaveResult {
  path: string;
  bytes: number;
}

/**
 * Streams a completed job's audio to `path`. The bytes go to a temporary file beside it that is
 * renamed into place at the end, so an interrupted download never leaves a truncated MP3 behind.
 */
export async function downloadToFile(
  client: AgentTtsClient,
  job: Pick<CompletedJob, 'job_id' | 'audio_url'> | string,
  path: string,
  options: CallOptions = {},
): Promise<SaveResult> {
  const audio = await client.openAudio(job, options);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.part`);
  let bytes = 0;
  try {
    const source = Readable.fromWeb(audio.body as NodeReadableStream<Uint8Array>, { signal: options.signal });
    const file = createWriteStream(temp, { flags: 'wx' });
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await pipeline(source, file, { signal: options.signal });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { path, bytes };
}

/** Streams a completed job's audio to a writable (standard output, say). */
export async function downloadToStream(
  client: AgentTtsClient,
  job: Pick<CompletedJob, 'job_id' | 'audio_url'> | string,
  destination: NodeJS.WritableStream,
  options: CallOptions = {},
): Promise<SaveResult> {
  const audio = await client.openAudio(job, options);
  let bytes = 0;
  const source = Readable.fromWeb(audio.body as NodeReadableStream<Uint8Array>, { signal: options.signal });
  source.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  await pipeline(source, destination, { end: false, signal: options.signal });
  return { path: '-', bytes };
}

/**
 * Downloads a job's word timings (`json`) or captions (`vtt`, `srt`) with `client.downloadCaptions` and
 * writes them to `path`, through a temporary file renamed into place. The JSON is written on one
 * line; a job without `timings` is NO_TIMINGS and writes nothing.
 */
export async function downloadCaptionsToFile(
  client: AgentTtsClient,
  job: JobWithTimings | string,
  format: CaptionFormat,
  path: string,
  options: CallOptions = {},
): Promise<SaveResult> {
  const text =
    format === 'json' ? `${JSON.stringify(await client.downloadCaptions(job, 'json', options))}\n` : await client.downloadCaptions(job, format, options);
  const bytes = Buffer.from(text, 'utf8');
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.part`);
  try {
    await writeFile(temp, bytes, { flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { path, bytes: bytes.length };
}
