import { AgentTtsError } from '../../client/errors.js';
import type { SaveResult } from '../../client/node.js';
import type { CompletedJob } from '../../client/types.js';
import { fileError } from '../errors.js';

/** Runs a download; errors of the local file system are reported as such (exit 11), not as API errors. */
export async function saveAudio(path: string, download: () => Promise<SaveResult>): Promise<SaveResult> {
  try {
    return await download();
  } catch (error) {
    if (error instanceof AgentTtsError || (error instanceof Error && error.name === 'AbortError')) throw error;
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') throw error;
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string') throw fileError('write the audio to', path, error);
    throw error;
  }
}

/** One line about a completed job: duration, voice, speed, language, minutes left, job id. */
export function describeJob(job: CompletedJob): string {
  const a = job.audio;
  const parts = [
    a.duration_seconds !== undefined ? `${a.duration_seconds.toFixed(2)} s` : undefined,
    `voice ${a.voice}`,
    `speed ${a.speed}`,
    a.language ? `language ${a.language}` : undefined,
  ].filter(Boolean);
  const b = job.billing;
  const usage = b ? ` ${b.monthly_minutes_remaining} of ${b.monthly_minutes_limit} monthly minutes left.` : '';
  return `${parts.join(', ')}.${usage} Job ${job.job_id}.`;
}
