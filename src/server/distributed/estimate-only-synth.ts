import { availableParallelism } from 'node:os';
import { Estimator } from '../../synth/estimate.js';
import { SynthesisError, type Synthesizer } from '../../synth/index.js';
import type { Config } from '../config.js';

/**
 * The synthesizer of an API process that runs no synthesis (LOCAL_WORKERS=false): it estimates audio
 * length (to reserve minutes) and wall time (for retry_after_seconds) like a real one, assuming the
 * workers are sized like this machine (or SYNTH_THREADS), without starting a thread pool.
 */
export function estimateOnlySynthesizer(config: Config): Synthesizer {
  const estimator = new Estimator(config.engine, config.synthThreads ?? availableParallelism());
  return {
    async synthesizeToFile() {
      throw new SynthesisError('INTERNAL_ERROR', 'This API process runs no synthesis (LOCAL_WORKERS=false); worker processes do.', {
        retryable: true,
      });
    },
    estimateAudioSeconds: (text, speed, language) => estimator.audioSeconds(text, speed, language),
    estimateWallSeconds: (text, speed, language) => estimator.wallSeconds(text, speed, language),
    async close() {},
  };
}
