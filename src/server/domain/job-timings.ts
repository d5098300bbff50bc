import { buildCues, renderSrt, renderWebVtt, toMillis } from '@agent-tts/contract/captions.js';
import type { WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import { type JobRecord, SynthesisError, type SynthesisResult } from '../ports/index.js';

/** The files a job that asked for word timings has stored beside its audio, as they are served. */
export interface JobTimingsFiles {
  /** The WordTimingsFile (`timings.json_url`). */
  json: Uint8Array;
  /** Its cues as WebVTT and SubRip, rendered once here so that no download renders them again. */
  vtt: Uint8Array;
  srt: Uint8Array;
}

/**
 * The word timings file of a job that asked for them (`timestamps: 'word'`), as stored beside its audio
 * and served at `timings.json_url`: the synthesizer's words, the cues made of them, and the duration
 * the job records; with the captions rendered from those cues. Undefined for a job that asked for none. A synthesizer that was asked and returned
 * no words has failed its port (an engine bug): INTERNAL_ERROR, not a job completed without the
 * captions its answer would offer.
 */
export function wordTimingsFile(job: Pick<JobRecord, 'id' | 'text' | 'timestamps'>, result: SynthesisResult): JobTimingsFiles | undefined {
  if (job.timestamps !== 'word') return undefined;
  const { words } = result;
  if (!words) throw new SynthesisError('INTERNAL_ERROR', 'the synthesizer was asked for word timings and returned none', { retryable: false });
  const file: WordTimingsFileBody = {
    job_id: job.id,
    granularity: 'word',
    duration_seconds: toMillis(result.durationSeconds),
    words,
    cues: buildCues(job.text, words),
  };
  const encoder = new TextEncoder();
  return { json: encoder.encode(JSON.stringify(file)), vtt: encoder.encode(renderWebVtt(file)), srt: encoder.encode(renderSrt(file)) };
}
