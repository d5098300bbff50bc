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

/**
 * Which build of eSpeak NG and LAME the espeak engine runs: `native` the system's libraries (native.ts;
 * Debian: `apt-get install espeak-ng lame`), `wasm` their WebAssembly builds (bundled), `auto` native
 * when its libraries are found, else wasm.
 */
export type EspeakBuild = 'auto' | 'native' | 'wasm';

export interface SynthesizerOptions {
  engine?: EngineKind;
  /** For the espeak engine; default `auto`. `native` without the libraries throws a SynthesisError saying what is missing. */
  espeakBuild?: EspeakBuild;
  /** Worker threads in the pool; default os.availableParallelism(). */
  threads?: number;
  upstream?: UpstreamOptions;
  /** MP3 bit rate (CBR); default 48 kbit/s. */
  bitrateKbps?: 32 | 40 | 48 | 64;
  /** Chunks of one job in flight at once; default 2 × threads (bounds memory and keeps the pool fair). */
  window?: number;
}
