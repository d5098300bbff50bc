import { LIMITS } from '@agent-tts/contract/limits.js';
import { parseVoice } from '@agent-tts/contract/voices.js';
import { chunkText, type TextChunk } from './chunker.js';
import type { SpeechEngine } from './engine.js';
import { type AudioSink, SynthesisError, type SynthesisProgress, type SynthesisRequest, type SynthesisResult } from '../ports/index.js';
import { toSynthesisError } from './errors.js';
import { ENCODER_JOIN_SAMPLES, type EncodedChunk, type Mp3Bitrate } from './mp3-encode.js';
import type { Limiter } from './limiter.js';
import type { SynthesisPool } from './pool.js';
import { WordTimeline } from './word-timeline.js';

/** eSpeak's native rate; upstream audio is resampled to it so that every file is alike. */
const OUTPUT_SAMPLE_RATE = 22050;

/** Pauses at speed 1.0, scaled by 1/speed like the speech. */
const SENTENCE_PAUSE_SECONDS = 0.45;
const CUT_PAUSE_SECONDS = 0.12;
const FINAL_PAUSE_SECONDS = 0.25;

export interface PipelineOptions {
  engine: SpeechEngine;
  pool: SynthesisPool;
  bitrateKbps: Mp3Bitrate;
  /** Chunks of this job synthesized or encoded at once. */
  window: number;
  /** Slots shared by every job of the synthesizer: one per chunk being synthesized or encoded. */
  limiter: Limiter;
  onProgress?: (p: SynthesisProgress) => void;
  signal?: AbortSignal;
}

function validate(req: SynthesisRequest): void {
  const problem = !parseVoice(req.voice)
    ? `unknown voice "${req.voice}"`
    : !(req.speed >= LIMITS.speedMin && req.speed <= LIMITS.speedMax)
      ? `speed ${req.speed} is outside ${LIMITS.speedMin}–${LIMITS.speedMax}`
      : req.text.trim() === ''
        ? 'blank text'
        : undefined;
  if (problem) throw new SynthesisError('INTERNAL_ERROR', `Invalid synthesis request: ${problem}`, { retryable: false });
}

function pauseSamples(chunk: TextChunk, last: boolean, speed: number): number {
  const seconds = last ? FINAL_PAUSE_SECONDS : chunk.endsSentence ? SENTENCE_PAUSE_SECONDS : CUT_PAUSE_SECONDS;
  // Every chunk is an MP3 stream of its own, whose start delay and end padding already sound as silence.
  return Math.max(0, Math.round((seconds / speed) * OUTPUT_SAMPLE_RATE) - ENCODER_JOIN_SAMPLES);
}

/** Synthesizes and encodes one chunk (its words placed, when timings are asked for) in a slot of the limiter. */
function chunkProducer(req: SynthesisRequest, chunkCount: number, timeline: WordTimeline | undefined, options: PipelineOptions) {
  const { signal } = options;
  return async (chunk: TextChunk): Promise<EncodedChunk> => {
    const words = timeline?.wordsOf(chunk);
    const release = await options.limiter.acquire(signal);
    try {
      const { text, index } = chunk;
      const pcm = await options.engine.synthesize({ text, voice: req.voice, language: req.language, speed: req.speed, wordEvents: !!timeline }, signal);
      signal?.throwIfAborted();
      return await options.pool.encode({
        samples: pcm.samples,
        sampleRate: pcm.sampleRate,
        outputRate: OUTPUT_SAMPLE_RATE,
        pauseSamples: pauseSamples(chunk, index === chunkCount - 1, req.speed),
        bitrateKbps: options.bitrateKbps,
        ...(words && { words: { ...words, marks: pcm.marks } }),
      });
    } finally {
      release();
    }
  };
}

/**
 * Synthesizes a request into MP3 bytes handed to `sink`: chunks go to the engine and the encoder a
 * bounded window at a time (memory stays flat whatever the text length), and reach the sink strictly in
 * order, each write awaited (so a slow sink slows the job rather than filling memory). On failure the
 * chunks still in flight are let finish and the error is thrown; what the sink received is the
 * caller's to discard.
 */
export async function synthesize(req: SynthesisRequest, sink: AudioSink, options: PipelineOptions): Promise<SynthesisResult> {
  const started = performance.now();
  const { signal } = options;
  signal?.throwIfAborted();
  validate(req);

  const chunks = chunkText(req.text, { locale: req.language });
  const totalChars = chunks.reduce((sum, c) => sum + c.length, 0);
  const timeline = req.timestamps === 'word' ? new WordTimeline(req.text, req.language, chunks, OUTPUT_SAMPLE_RATE) : undefined;

  const inFlight = new Map<number, Promise<EncodedChunk>>();
  const produce = chunkProducer(req, chunks.length, timeline, options);
  const start = (index: number) => {
    const work = produce(chunks[index]!);
    // Failures are handled when the chunk's turn comes; this keeps an early failure from going unhandled.
    work.catch(() => undefined);
    inFlight.set(index, work);
  };

  let bytes = 0;
  let decodedSamples = 0;
  let charsDone = 0;
  const report = (completedChunks: number) =>
    options.onProgress?.({
      completedChunks,
      totalChunks: chunks.length,
      fraction: totalChars === 0 ? 1 : charsDone / totalChars,
      audioSeconds: decodedSamples / OUTPUT_SAMPLE_RATE,
      elapsedMs: Math.round(performance.now() - started),
    });

  try {
    report(0);
    let next = 0;
    for (let index = 0; index < chunks.length; index++) {
      while (next < chunks.length && next < index + options.window) start(next++);
      const encoded = await inFlight.get(index)!;
      inFlight.delete(index);
      signal?.throwIfAborted();
      await sink.write(encoded.mp3);
      timeline?.place(chunks[index]!, encoded.words, decodedSamples);
      bytes += encoded.mp3.length;
      decodedSamples += encoded.decodedSamples;
      charsDone += chunks[index]!.length;
      report(index + 1);
    }
  } catch (error) {
    // Let the chunks still in the pool finish, so nothing outlives the call.
    await Promise.allSettled(inFlight.values());
    if (signal?.aborted) throw signal.reason;
    throw toSynthesisError(error, 'Synthesis failed');
  }

  const durationSeconds = decodedSamples / OUTPUT_SAMPLE_RATE;
  return {
    durationSeconds,
    bytes,
    sampleRate: OUTPUT_SAMPLE_RATE,
    format: 'mp3',
    voice: req.voice,
    speed: req.speed,
    language: req.language,
    bitrateKbps: options.bitrateKbps,
    chunks: chunks.length,
    elapsedMs: Math.round(performance.now() - started),
    ...(timeline && { words: timeline.finish(durationSeconds) }),
  };
}
