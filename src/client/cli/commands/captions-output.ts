/** `speak --captions <file.vtt|file.srt>` and `--timings <file.json>`: checked before anything is sent, written after the audio. */
import { extname, resolve } from 'node:path';
import type { AgentTtsClient } from '../../client.js';
import type { CaptionFormat } from '../../signed-download.js';
import { downloadCaptionsToFile, type SaveResult } from '../../node.js';
import type { CompletedJob } from '../../types.js';
import { CliError, usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { checkOutputPath, saveAudio } from './audio-output.js';

/** One file to write: where, and which rendering of the job's timings. */
export interface TimingsTarget {
  flag: '--captions' | '--timings';
  path: string;
  format: CaptionFormat;
}

const CAPTION_EXTENSIONS: Record<string, CaptionFormat> = { '.vtt': 'vtt', '.srt': 'srt' };
const FORMAT_NAMES: Record<CaptionFormat, string> = { vtt: 'WebVTT captions', srt: 'SubRip captions', json: 'word timings' };

/**
 * The files `--captions` and `--timings` ask for, checked before any request: the captions' format
 * from the extension (.vtt or .srt), each path writable, none the same file as another or as the audio.
 */
export async function timingsTargets(
  values: { captions?: string; timings?: string; 'no-download'?: boolean },
  audioPath: string | undefined,
): Promise<TimingsTarget[]> {
  const targets: TimingsTarget[] = [];
  if (values.captions !== undefined) {
    const format = CAPTION_EXTENSIONS[extname(values.captions).toLowerCase()];
    if (!format) {
      throw usageError(
        `--captions takes a file ending in .vtt (WebVTT) or .srt (SubRip), which sets the format; got "${values.captions}". For the word timings as JSON, use --timings <file.json>`,
        'speak',
      );
    }
    targets.push({ flag: '--captions', path: values.captions, format });
  }
  if (values.timings !== undefined) targets.push({ flag: '--timings', path: values.timings, format: 'json' });
  const [first] = targets;
  if (first === undefined) return targets;
  if (values['no-download']) throw usageError(`--no-download and ${first.flag} cannot be combined: ${first.flag} writes a file after the audio`, 'speak');
  const seen = new Map<string, string>(audioPath !== undefined && audioPath !== '-' ? [[resolve(audioPath), '-o']] : []);
  for (const target of targets) {
    if (target.path === '-') throw usageError(`${target.flag} needs a file path; standard output ("-") is for the audio`, 'speak');
    const other = seen.get(resolve(target.path));
    if (other) throw usageError(`${target.flag} and ${other} name the same file, ${target.path}`, 'speak');
    seen.set(resolve(target.path), target.flag);
    await checkOutputPath(target.path, FORMAT_NAMES[target.format], target.flag);
  }
  return targets;
}

/**
 * Writes each target from the job's timings, after the audio. A job that came back without `timings`
 * although the request asked for them is from a service without the extension: exit 12, saying so.
 */
export async function writeTimings(
  client: AgentTtsClient,
  job: CompletedJob,
  targets: TimingsTarget[],
  signal: AbortSignal,
): Promise<(SaveResult & { format: CaptionFormat })[]> {
  if (targets.length > 0 && !job.timings) {
    throw new CliError(
      `The service returned no word timings for job ${job.job_id}, though the request asked for them (timestamps: "word"): ` +
        `it does not offer word timings and captions, an extension beyond the base API. ${targets.map((t) => t.path).join(' and ')} not written.`,
      EXIT.NO_TIMINGS,
      'Use a service that offers word timings (the reference server does), or leave out --captions and --timings.',
      'NO_TIMINGS',
    );
  }
  const saved: (SaveResult & { format: CaptionFormat })[] = [];
  for (const target of targets) {
    const result = await saveAudio(target.path, () => downloadCaptionsToFile(client, job, target.format, target.path, { signal }), FORMAT_NAMES[target.format]);
    saved.push({ ...result, format: target.format });
  }
  return saved;
}

/** "Saved out.vtt (1234 bytes, WebVTT captions)." */
export function describeSaved(file: SaveResult & { format: CaptionFormat }): string {
  return `Saved ${file.path} (${file.bytes} bytes, ${FORMAT_NAMES[file.format]}).`;
}
