import { buildCues, toMillis } from '@agent-tts/contract/captions.js';
import type { WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import { type JobRecord, SynthesisError, type SynthesisResult } from '../ports/index.js';

/**
 * The word timings file of a job that asked for them (`timestamps: 'word'`), as stored beside its audio
 * and served at `timings.json_url`: the synthesizer's words, the cues made of them, and the duration
 * the job records. Undefined for a job that asked for none. A synthesizer that was asked and returned
 * no words has failed its port (an engine bug): INTERNAL_ERROR, not a job completed without the
 * captions its answer would offer.
 */
export function wordTimingsFile(job: Pick<JobRecord, 'id' | 'text' | 'timestamps'>, result: SynthesisResult): Uint8Array | undefined {
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
  return new TextEncoder().encode(JSON.stringify(file));
}
