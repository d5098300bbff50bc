/** Speech synthesis: text in, MP3 out (to a sink or a file), implementing the Synthesizer port (ports/synthesis.ts). What the server and the workers import. */
export { createSynthesizer } from './synthesizer.js';
export { voiceCatalog } from './catalog.js';
export { Estimator, speechShares } from './estimate.js';
