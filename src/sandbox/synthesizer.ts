import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { encodeChunk, type EncodedChunk } from '@agent-tts/server/synth/mp3-encode.js';
import {
  type AudioSink,
  SynthesisError,
  type SynthesisRequest,
  type SynthesisResult,
  type SynthesisRunOptions,
  type Synthesizer,
} from '@agent-tts/server/ports/index.js';
import { Estimator } from '@agent-tts/server/synth/index.js';
import { outcomeOf, type Outcome } from './outcomes.js';
import { instantWordTimings } from './word-timings.js';

const RATE = 24_000;
const BITRATE = 48;
/** Independent MP3 streams of silence (they concatenate into one valid file), longest first. */
const BLOCK_SECONDS = [30, 5, 1, 0.25, 0.05] as const;

let blocks: Promise<EncodedChunk[]> | undefined;

/** The silent blocks, encoded once per process by the project's own MP3 encoder. */
function silentBlocks(): Promise<EncodedChunk[]> {
  blocks ??= Promise.all(
    BLOCK_SECONDS.map((s) => encodeChunk({ samples: new Float32Array(0), sampleRate: RATE, outputRate: RATE, pauseSamples: s * RATE, bitrateKbps: BITRATE })),
  );
  return blocks;
}

/** An MP3 of silence lasting about `seconds` (within the shortest block), and its exact duration. */
async function silence(seconds: number): Promise<{ mp3: Uint8Array[]; durationSeconds: number; bytes: number }> {
  const all = await silentBlocks();
  const parts: Uint8Array[] = [];
  let samples = 0;
  const target = Math.max(0, seconds) * RATE;
  for (const [i, block] of all.entries()) {
    // Whole blocks while they fit; the shortest also rounds to the nearest.
    const fits = i === all.length - 1 ? 0.5 : 1;
    while (target - samples >= block.decodedSamples * fits) {
      parts.push(block.mp3);
      samples += block.decodedSamples;
    }
  }
  if (parts.length === 0) {
    const shortest = all[all.length - 1]!;
    parts.push(shortest.mp3);
    samples = shortest.decodedSamples;
  }
  return { mp3: parts, durationSeconds: samples / RATE, bytes: parts.reduce((n, p) => n + p.length, 0) };
}

/**
 * The sandbox's synthesizer: no speech engine, no worker pool. A job's audio is a real, valid MP3 of
 * silence as long as the reference estimates the text's speech, written at once; a magic input can make
 * it fail instead. Asked for word timings, it places each word where that estimate puts it
 * (word-timings.ts). How long a job takes on the sandbox clock is the queue's business (queue.ts); the
 * wall estimate given here is that time, so retry_after_seconds follows the sandbox clock.
 */
export class InstantSynthesizer implements Synthesizer {
  private readonly estimator: Estimator;

  /** `threads`: the synthesis threads the reference would have here (its estimate of a job's time). */
  constructor(
    private readonly inlineWaitSeconds: number,
    threads = availableParallelism(),
  ) {
    this.estimator = new Estimator('espeak', threads);
  }

  outcome(text: string, speed: number, language?: string): Outcome {
    return outcomeOf(text, this.estimator.wallSeconds(text, speed, language), this.inlineWaitSeconds);
  }

  estimateAudioSeconds(text: string, speed: number, language?: string): number {
    return this.estimator.audioSeconds(text, speed, language);
  }

  estimateWallSeconds(text: string, speed: number, language?: string): number {
    return this.outcome(text, speed, language).seconds;
  }

  async synthesize(req: SynthesisRequest, sink: AudioSink, opts: SynthesisRunOptions = {}): Promise<SynthesisResult> {
    const started = Date.now();
    const { failure, realSeconds } = this.outcome(req.text, req.speed, req.language);
    // sandbox:inline=<seconds>: the one outcome that takes real time, so the inline wait has something to hold.
    // Cut short when the run is (the sandbox stopping): the job is interrupted, not a minute of shutdown.
    if (realSeconds) await delay(realSeconds * 1000, undefined, { signal: opts.signal });
    if (failure) {
      opts.onProgress?.({ completedChunks: 0, totalChunks: 1, fraction: failure.atFraction, audioSeconds: 0, elapsedMs: Date.now() - started });
      if (failure.code === 'TTS_PROVIDER_ERROR')
        throw new SynthesisError('TTS_PROVIDER_ERROR', 'sandbox: the speech engine failed, as the text asked (sandbox:provider_error)');
      throw new Error('sandbox: synthesis failed, as the text asked (sandbox:internal_error)');
    }
    const audio = await silence(this.estimateAudioSeconds(req.text, req.speed, req.language));
    for (const part of audio.mp3) await sink.write(part);
    const elapsedMs = Date.now() - started;
    opts.onProgress?.({ completedChunks: 1, totalChunks: 1, fraction: 1, audioSeconds: audio.durationSeconds, elapsedMs });
    return {
      durationSeconds: audio.durationSeconds,
      bytes: audio.bytes,
      sampleRate: RATE,
      format: 'mp3',
      voice: req.voice,
      speed: req.speed,
      language: req.language,
      bitrateKbps: BITRATE,
      chunks: audio.mp3.length,
      elapsedMs,
      ...(req.timestamps === 'word' ? { words: instantWordTimings(req.text, req.language, audio.durationSeconds) } : {}),
    };
  }

  async synthesizeToFile(): Promise<SynthesisResult> {
    throw new Error('the sandbox synthesizes into the audio storage only');
  }

  async close(): Promise<void> {}
}
