/** Speech synthesis: text in, MP3 out (to a sink or a file). What the server and the workers import. */
export { SynthesisError } from './errors.js';
export type {
  AudioSink,
  SynthesisEstimator,
  SynthesisRunOptions,
  SynthesisProgress,
  SynthesisRequest,
  SynthesisResult,
  Synthesizer,
} from './types.js';
export { createSynthesizer } from './synthesizer.js';
export { voiceCatalog } from './catalog.js';
export { Estimator } from './estimate.js';
