// Speech synthesis as the domain uses it: synth/ implements it (eSpeak NG in worker threads, or an
// OpenAI-compatible server); the sandbox, instantly.
import type { WordTimingBody } from '@agent-tts/contract/timing-schemas.js';

export type SynthErrorCode = 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR';

/**
 * The one error type synthesis rejects with (besides an abort, which rejects with the signal's reason).
 * `retryable` tells the job layer whether running the same request again may succeed.
 */
export class SynthesisError extends Error {
  override readonly name = 'SynthesisError';
  readonly code: SynthErrorCode;
  readonly retryable: boolean;

  constructor(code: SynthErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? code === 'TTS_PROVIDER_ERROR';
  }
}

export interface SynthesisRequest {
  text: string;
  voice: string;
  /** Resolved language: a §4.5 code for st_* voices, or the BCP 47 tag of a Kokoro voice's first letter. */
  language: string;
  /** 0.5–1.5; the audio lasts about 1/speed as long as at 1.0. */
  speed: number;
  /** `word`: the result carries the time of every word of `text` in the delivered MP3 (an extension beyond the base API). */
  timestamps?: 'word';
}

export interface SynthesisProgress {
  completedChunks: number;
  totalChunks: number;
  /** Share of the text (by characters) whose audio is in the file; 0–1. */
  fraction: number;
  /** Seconds of audio written so far. */
  audioSeconds: number;
  elapsedMs: number;
}

export interface SynthesisResult {
  /** Exact playing time of the file: every MP3 frame written, pauses included. */
  durationSeconds: number;
  bytes: number;
  sampleRate: number;
  format: 'mp3';
  voice: string;
  speed: number;
  language: string;
  /** Constant bit rate of the file in kbit/s. */
  bitrateKbps: number;
  chunks: number;
  elapsedMs: number;
  /**
   * When the request asked for `timestamps: 'word'`: every word of the text (`textWords` of the
   * contract's captions module) once, in order, with its start and end in seconds of the delivered MP3
   * and its offsets into the request's text.
   */
  words?: WordTimingBody[];
}

/** Where encoded MP3 bytes go, in order; each write is awaited before the next. */
export interface AudioSink {
  write(bytes: Uint8Array): Promise<void>;
}

export interface SynthesisRunOptions {
  onProgress?: (p: SynthesisProgress) => void;
  signal?: AbortSignal;
}

/** What is needed of synthesis to accept a job: estimates, without running anything. */
export interface SynthesisEstimator {
  /** Estimated audio duration in seconds for a text at a speed (used to reserve usage minutes before synthesis). */
  estimateAudioSeconds(text: string, speed: number, language?: string): number;
  /** Estimated wall-clock seconds to synthesize the text on this deployment, refined by measured throughput. */
  estimateWallSeconds(text: string, speed: number, language?: string): number;
}

/** What speaks, as /readyz and the start line name it. */
export interface SynthesisEngineInfo {
  /** `espeak-native`, `espeak-wasm`, `openai-compatible` (or another implementation's own name). */
  name: string;
  /** Libraries and versions, e.g. "eSpeak NG 1.51, LAME 3.100". */
  detail?: string;
}

export interface Synthesizer extends SynthesisEstimator {
  /** The engine that runs; an implementation without one to name leaves it out. */
  readonly engine?: SynthesisEngineInfo;
  /** Synthesizes into a sink (e.g. an audio store's writer); see synth/pipeline.ts. */
  synthesize(req: SynthesisRequest, sink: AudioSink, opts?: SynthesisRunOptions): Promise<SynthesisResult>;
  close(): Promise<void>;
}
