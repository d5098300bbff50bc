import { availableParallelism } from 'node:os';
import { VOICES_PATH } from '@agent-tts/contract/limits.js';
import type { Config } from './config.js';
import { ConfigError } from './config/error.js';
import { SpeechRequests } from './domain/speech-request.js';
import { SynthesisError, type SynthesisEstimator, type Synthesizer } from './ports/index.js';
import { voiceCatalog } from './synth/catalog.js';
import { Estimator } from './synth/estimate.js';

/** The synthesis side of the assembly (compose.ts): the engine, its estimates and the voices a deployment speaks, from the configuration. */

/**
 * The configured engine. Imported when it is made, not with this module: a composition that brings its
 * own synthesizer (the sandbox's instant one) never loads eSpeak's WebAssembly build, the MP3 encoder or
 * the thread pool, and a bundle of it does not reach them.
 */
export async function createSynth(config: Config): Promise<Synthesizer> {
  const { createSynthesizer } = await import('./synth/synthesizer.js');
  try {
    return createSynthesizer({
      engine: config.engine,
      espeakBuild: config.synthEngine,
      threads: config.synthThreads,
      upstream: { ...config.upstream, retries: 3 },
    });
  } catch (error) {
    // SYNTH_ENGINE=native where the native libraries are missing: a setting this machine cannot honour.
    if (error instanceof SynthesisError && config.synthEngine === 'native') throw new ConfigError(`SYNTH_ENGINE=native: ${error.message}`);
    throw error;
  }
}

/**
 * The voices this deployment can speak: the families (eSpeak speaks all; an upstream engine those
 * configured), and the voices of its public catalog, the only ones a submission may name.
 */
export function speechRequests(config: Config): SpeechRequests {
  const families =
    config.engine === 'espeak' ? (['kokoro', 'supertonic'] as const) : (['kokoro', 'supertonic'] as const).filter((f) => config.upstream.baseUrls[f]);
  const catalog = { ids: voiceCatalog(config.engine, config.upstream).map((v) => v.id), url: `${config.publicVoicesUrl.replace(/\/+$/, '')}${VOICES_PATH}` };
  return new SpeechRequests(new Set(families), catalog, config.voicesUnlisted);
}

/** Estimates as a synthesizer would make them, without a thread pool (an API process without workers). */
export function estimateOnly(config: Config): SynthesisEstimator {
  const estimator = new Estimator(config.engine, config.synthThreads ?? availableParallelism());
  return {
    estimateAudioSeconds: (text, speed, language) => estimator.audioSeconds(text, speed, language),
    estimateWallSeconds: (text, speed, language) => estimator.wallSeconds(text, speed, language),
  };
}
