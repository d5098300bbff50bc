import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { AgentTtsClient } from '../../client.js';
import { AgentTtsError } from '../../errors.js';
import type { StreamableJob } from '../../stream.js';
import type { SpeechRequest } from '../../types.js';
import type { CliContext } from '../context.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { describeJob } from './audio-output.js';

export interface StreamSpeechOptions {
  /** `-` for stdout, or a file path. */
  target: string;
  idempotencyKey?: string;
  timeoutMs?: number;
}

/**
 * `speak --stream <-|file>`: submits the text and writes the job's audio as it is made, from its
 * `stream_url` (an extension: docs/api-rules.md#streaming-audio), so that a player reading stdout starts
 * at the first chunk. Once the stream ends, the job is polled to its end: a job that failed (its stream
 * then ends abnormally) is reported as its error, like `speak`. A job that completes inline, or a
 * service without the extension (no `stream_url`), has its audio downloaded once it is complete.
 */
export async function streamSpeech(ctx: CliContext, client: AgentTtsClient, request: SpeechRequest, options: StreamSpeechOptions): Promise<ExitCode> {
  const { job: submitted } = await client.submit(request, { signal: ctx.signal, idempotencyKey: options.idempotencyKey });
  ctx.jobId = submitted.job_id;
  const destination = options.target === '-' ? ctx.output.streams.stdout : createWriteStream(options.target);
  let bytes = 0;
  let streamError: unknown;
  try {
    // A service without the extension: the audio once the job is complete.
    const streamable: StreamableJob =
      submitted.status === 'processing' && !submitted.stream_url
        ? await client.poll(submitted.job_id, { signal: ctx.signal, timeoutMs: options.timeoutMs })
        : submitted;
    const body = await client.stream(streamable, { signal: ctx.signal });
    const source = Readable.fromWeb(body as NodeReadableStream<Uint8Array>, { signal: ctx.signal });
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await pipeline(source, destination, { end: options.target !== '-', signal: ctx.signal });
  } catch (error) {
    if (ctx.signal?.aborted) throw error;
    streamError = error;
  }
  // The job's own answer decides: a failed job is its error; a stream cut short of a completed job is a network error.
  const job = submitted.status === 'completed' ? submitted : await client.poll(submitted.job_id, { signal: ctx.signal, timeoutMs: options.timeoutMs });
  if (streamError !== undefined) {
    if (streamError instanceof AgentTtsError) throw streamError;
    throw new AgentTtsError({
      code: 'NETWORK_ERROR',
      message: `The audio stream of job ${job.job_id} ended short: ${(streamError as Error).message}`,
      jobId: job.job_id,
      cause: streamError,
    });
  }
  const where = options.target === '-' ? 'stdout' : options.target;
  if (ctx.output.json) ctx.output.emitJson({ ok: true, job, file: { path: options.target, bytes } });
  else ctx.output.err(`Streamed ${bytes} bytes of audio to ${where}. ${describeJob(job)}`);
  return EXIT.OK;
}
