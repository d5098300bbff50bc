import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AudioSink,
  Estimator,
  SynthesisError,
  type SynthesisRequest,
  type SynthesisResult,
  type SynthesisRunOptions,
  type Synthesizer,
} from '@agent-tts/server';
import { outcomeOf, type Outcome } from './outcomes.js';
import { instantWordTimings } from './word-timings.js';

const RATE = 24_000;
const BITRATE = 48;
/** Samples of one MPEG-2 Layer III frame. */
const FRAME_SAMPLES = 576;

/**
 * Frames of silence, precomputed: no encoder runs. MPEG-2 Layer III at 24 kHz, 48 kbit/s, mono
 * (the reference's speech format): a 4-byte header (sync, MPEG-2, Layer III, no CRC; bitrate index 6,
 * 24 kHz, no padding; mono, original), then zeroed side information and main data (144 bytes in all,
 * 72 × 48,000 / 24,000), which every decoder plays as 576 samples of silence. Frames concatenate into
 * one valid stream.
 */
const FRAME_BYTES = (72 * BITRATE * 1000) / RATE;
/** 30 seconds of silent frames, written as many times as a job's audio needs (and a prefix of it for the rest). */
const BLOCK_FRAMES = 1_250;
const SILENT_BLOCK = (() => {
  const block = new Uint8Array(BLOCK_FRAMES * FRAME_BYTES);
  for (let i = 0; i < BLOCK_FRAMES; i++) block.set([0xff, 0xf3, 0x64, 0xc4], i * FRAME_BYTES);
  return block;
})();

/** An MP3 of silence of the whole frames nearest to `seconds` (at least one), in parts, and its exact duration. */
function silence(seconds: number): { mp3: Uint8Array[]; durationSeconds: number; bytes: number } {
  const frames = Math.max(1, Math.round((Math.max(0, seconds) * RATE) / FRAME_SAMPLES));
  const mp3: Uint8Array[] = [];
  for (let left = frames; left > 0; left -= BLOCK_FRAMES) mp3.push(SILENT_BLOCK.subarray(0, Math.min(left, BLOCK_FRAMES) * FRAME_BYTES));
  return { mp3, durationSeconds: (frames * FRAME_SAMPLES) / RATE, bytes: frames * FRAME_BYTES };
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
    const audio = silence(this.estimateAudioSeconds(req.text, req.speed, req.language));
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

  async close(): Promise<void> {}
}
