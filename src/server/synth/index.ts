/** Speech synthesis: text in, MP3 out (to a sink or a file). What the server and the workers import. */
export { SynthesisError, type SynthErrorCode } from './errors.js';
export type {
  AudioSink,
  EngineKind,
  SynthesisEstimator,
  SynthesisRunOptions,
  SynthesisProgress,
  SynthesisRequest,
  SynthesisResult,
  Synthesizer,
  SynthesizerOptions,
  UpstreamOptions,
} from './types.js';
export { createSynthesizer } from './synthesizer.js';
export { voiceCatalog, type CatalogVoice } from './catalog.js';
export type { SpeechEngine, SpeechChunk } from './engine.js';
export { Estimator } from './estimate.js';
