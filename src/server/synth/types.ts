export interface SynthesisRequest {
  text: string;
  voice: string;
  /** Resolved language: a §4.5 code for st_* voices, or the BCP 47 tag of a Kokoro voice's first letter. */
  language: string;
  /** 0.5–1.5; the audio lasts about 1/speed as long as at 1.0. */
  speed: number;
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
}

export type EngineKind = 'espeak' | 'openai-compatible';

export interface UpstreamOptions {
  /** Server origin per voice family, e.g. `http://kokoro:8880`; `/v1/audio/speech` is appended. */
  baseUrls: { kokoro?: string; supertonic?: string };
  /** `model` field of the request body; default `tts-1`. */
  model?: string;
  /** Sent as `Authorization: Bearer …`; never appears in error messages. */
  apiKey?: string;
  /** Per HTTP request; default 60 000 ms. */
  timeoutMs?: number;
  /** Further attempts after a transient failure; default 3. */
  retries?: number;
  /** Sample rate of the `pcm` the server returns; default 24 000 (Kokoro-FastAPI). */
  pcmSampleRate?: number;
  /** First backoff delay; doubles per attempt, with full jitter; default 500 ms. */
  retryBaseDelayMs?: number;
}

export interface SynthesizerOptions {
  engine?: EngineKind;
  /** Worker threads in the pool; default os.availableParallelism(). */
  threads?: number;
  upstream?: UpstreamOptions;
  /** MP3 bit rate (CBR); default 48 kbit/s. */
  bitrateKbps?: 32 | 40 | 48 | 64;
  /** Chunks of one job in flight at once; default 2 × threads (bounds memory and keeps the pool fair). */
  window?: number;
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

export interface Synthesizer extends SynthesisEstimator {
  /** Synthesizes into a sink (e.g. an audio store's writer); see pipeline.ts. */
  synthesize(req: SynthesisRequest, sink: AudioSink, opts?: SynthesisRunOptions): Promise<SynthesisResult>;
  synthesizeToFile(
    req: SynthesisRequest,
    outPath: string,
    opts?: SynthesisRunOptions & {
      /** Where the partial file is written (on the file system of `outPath`); default beside it. */
      tempDir?: string;
    },
  ): Promise<SynthesisResult>;
  close(): Promise<void>;
}
