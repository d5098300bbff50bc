import { availableParallelism } from 'node:os';
import { EspeakEngine, type SpeechEngine } from './engine.js';
import {
  type SynthesisEngineInfo,
  SynthesisError,
  type SynthesisProgress,
  type SynthesisRequest,
  type SynthesisResult,
  type SynthesisRunOptions,
  type Synthesizer,
} from '../ports/index.js';
import { Estimator } from './estimate.js';
import { Limiter } from './limiter.js';
import { OpenAICompatibleEngine } from './openai-compatible.js';
import { type PipelineOptions, synthesize } from './pipeline.js';
import { findNativeLibraries, type NativeLibraries } from './native.js';
import { SynthesisPool } from './pool.js';
import type { EspeakBuild, SynthesizerOptions } from './types.js';

/** The native libraries the espeak engine is to run on, or undefined for the WebAssembly build. */
function nativeLibraries(build: EspeakBuild): NativeLibraries | undefined {
  if (build === 'wasm') return undefined;
  const found = findNativeLibraries();
  if ('espeak' in found) return found;
  if (build === 'auto') return undefined;
  throw new SynthesisError('INTERNAL_ERROR', `The native eSpeak NG engine cannot run: ${found.missing}.`, { retryable: false });
}

/**
 * The synthesizer of a process: one worker pool shared by every job, an engine, and estimates that learn
 * from the jobs it runs.
 */
export function createSynthesizer(options: SynthesizerOptions = {}): Synthesizer {
  const kind = options.engine ?? 'espeak';
  if (kind === 'openai-compatible' && !options.upstream) {
    throw new SynthesisError('INTERNAL_ERROR', 'The openai-compatible engine needs upstream base URLs', { retryable: false });
  }
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const native = kind === 'espeak' ? nativeLibraries(options.espeakBuild ?? 'auto') : undefined;
  const engineInfo: SynthesisEngineInfo =
    kind === 'espeak'
      ? native
        ? { name: 'espeak-native', detail: native.version }
        : { name: 'espeak-wasm', detail: 'eSpeak NG and LAME in WebAssembly' }
      : { name: 'openai-compatible' };
  const pool = new SynthesisPool({ threads, warmEspeak: kind === 'espeak', ...(native && { native }) });
  // Checked above: the openai-compatible engine has its upstream.
  const engine: SpeechEngine = kind === 'openai-compatible' && options.upstream ? new OpenAICompatibleEngine(options.upstream) : new EspeakEngine(pool);
  const estimator = new Estimator(kind, threads);
  const bitrateKbps = options.bitrateKbps ?? 48;
  // Two chunks per thread keep every thread busy while one result travels back; more only costs memory.
  const window = Math.max(1, options.window ?? threads * 2);
  // Across jobs a little more, so that several jobs progress at once; upstream chunks mostly wait on the
  // network, so more of them may be out at once.
  const limiter = new Limiter(kind === 'espeak' ? threads * 3 : Math.max(4, threads * 4));
  let closed = false;

  /** Runs one job through the pipeline, counting it for the estimator and teaching it the outcome. */
  async function run(req: SynthesisRequest, opts: SynthesisRunOptions, pipeline: (o: PipelineOptions) => Promise<SynthesisResult>): Promise<SynthesisResult> {
    if (closed) throw new SynthesisError('INTERNAL_ERROR', 'The synthesizer is closed', { retryable: true });
    estimator.jobStarted();
    let concurrencySum = 0;
    let concurrencySamples = 0;
    const onProgress = (p: SynthesisProgress) => {
      concurrencySum += estimator.runningJobs;
      concurrencySamples++;
      opts.onProgress?.(p);
    };
    try {
      const result = await pipeline({ engine, pool, limiter, bitrateKbps, window, onProgress, signal: opts.signal });
      estimator.record({
        text: req.text,
        speed: req.speed,
        language: req.language,
        audioSeconds: result.durationSeconds,
        elapsedMs: result.elapsedMs,
        concurrentJobs: concurrencySamples ? concurrencySum / concurrencySamples : 1,
      });
      return result;
    } finally {
      estimator.jobEnded();
    }
  }

  return {
    engine: engineInfo,
    synthesize: (req, sink, opts = {}) => run(req, opts, (o) => synthesize(req, sink, o)),
    estimateAudioSeconds: (text, speed, language) => estimator.audioSeconds(text, speed, language),
    estimateWallSeconds: (text, speed, language) => estimator.wallSeconds(text, speed, language),
    async close() {
      if (closed) return;
      closed = true;
      await pool.destroy();
    },
  };
}
