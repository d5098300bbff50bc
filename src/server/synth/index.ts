/**
 * Speech synthesis: text in, MP3 out (to a sink or a file), implementing the Synthesizer port
 * (ports/synthesis.ts). What the server and the workers import, and the package's
 * `@agent-tts/server/synth` export.
 */
export { createSynthesizer } from './synthesizer.js';
export { synthesizeToFile } from './to-file.js';
export { voiceCatalog } from './catalog.js';
export { Estimator } from './estimate.js';
// The engine's stages, each measured on its own by the benchmarks (bench/benchmarks/synth-*.ts).
export { chunkText } from './chunker.js';
export { espeakSettings } from './espeak-voices.js';
export { espeakSynthesize } from './espeak-wasm.js';
export { encodeChunk, type Mp3Bitrate } from './mp3-encode.js';
export { SynthesisPool } from './pool.js';
