import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { AgentTtsError } from '../../errors.js';
import type { SaveResult } from '../../node.js';
import type { CompletedJob } from '../../types.js';
import { CliError, fileError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/**
 * Checked before any request, so a path that cannot be written fails at once (exit 11) instead of
 * after the job was made, waited for and charged: `-` (stdout) or a path whose directory exists and
 * can be written (the download writes a temporary file beside the target, then renames it). `what`
 * and `flag` name the file and its option in the message (the audio and -o unless told).
 */
export async function checkOutputPath(path: string, what = 'the audio', flag = '-o'): Promise<void> {
  if (path === '-') return;
  const refuse = (reason: string) =>
    new CliError(
      `Cannot write ${what} to ${path}: ${reason}. Nothing was sent to the service.`,
      EXIT.LOCAL_FILE,
      flag === '-o'
        ? 'Give -o a file in an existing directory you can write to, or -o - for standard output.'
        : `Give ${flag} a file in an existing directory you can write to.`,
      'LOCAL_FILE',
    );
  if ((await stat(path).catch(() => undefined))?.isDirectory()) throw refuse('it is a directory');
  const dir = dirname(resolve(path));
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    throw refuse(
      info.code === 'ENOENT'
        ? `the directory ${dir} does not exist`
        : info.code === 'ENOTDIR'
          ? `a parent of ${dir} is not a directory`
          : `${dir}: ${info.code ?? info.message}`,
    );
  }
  if (!info.isDirectory()) throw refuse(`${dir} is not a directory`);
  await access(dir, constants.W_OK | constants.X_OK).catch(() => {
    throw refuse(`the directory ${dir} cannot be written to`);
  });
}

/** Runs a download; errors of the local file system are reported as such (exit 11), not as API errors. */
export async function saveAudio(path: string, download: () => Promise<SaveResult>, what = 'the audio'): Promise<SaveResult> {
  try {
    return await download();
  } catch (error) {
    if (error instanceof AgentTtsError || (error instanceof Error && error.name === 'AbortError')) throw error;
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') throw error;
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string') throw fileError(`write ${what} to`, path, error);
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
