import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { DEFAULT_VOICE, parseVoice, resolveLanguage } from '@agent-tts/contract/voices.js';
import type { SynthesisRequest, Synthesizer } from '@agent-tts/server';
import { createSynthesizer, synthesizeToFile } from '@agent-tts/server/synth';

/**
 * The synthesis pipeline called in the benchmark's own process, the baseline the HTTP paths are
 * measured against, and the request the server builds from a text alone.
 */

/**
 * The build of eSpeak NG and LAME the benchmark's own synthesizers run: SYNTH_ENGINE as the server reads
 * it (auto: the system's libraries when installed), so that a run set to one engine measures it throughout.
 */
export function benchEspeakBuild(env: NodeJS.ProcessEnv = process.env): 'auto' | 'native' | 'wasm' {
  const value = env.SYNTH_ENGINE ?? 'auto';
  if (value === 'auto' || value === 'native' || value === 'wasm') return value;
  throw new Error(`SYNTH_ENGINE must be auto, native or wasm, not "${value}"`);
}

/** The request the server builds from `{ text }` alone: default voice, its language, default speed. */
export function defaultSynthesisRequest(text: string): SynthesisRequest {
  const voice = parseVoice(DEFAULT_VOICE)!;
  return { text, voice: voice.id, language: resolveLanguage(voice, undefined), speed: LIMITS.speedDefault };
}

/** The pipeline called in this process, as the server's job runner calls it, one file per call. */
export class DirectPipeline {
  private n = 0;
  private constructor(
    private readonly synth: Synthesizer,
    private readonly dir: string,
  ) {}

  static async create(threads: number): Promise<DirectPipeline> {
    return new DirectPipeline(createSynthesizer({ threads, espeakBuild: benchEspeakBuild() }), await mkdtemp(join(tmpdir(), 'agent-tts-bench-direct-')));
  }

  async once(req: SynthesisRequest): Promise<number> {
    return (await this.run(req)).ms;
  }

  async run(req: SynthesisRequest): Promise<{ ms: number; audioSeconds: number; bytes: number }> {
    const out = join(this.dir, `${this.n++}.mp3`);
    const started = performance.now();
    const result = await synthesizeToFile(this.synth, req, out);
    const ms = performance.now() - started;
    await unlink(out);
    return { ms, audioSeconds: result.durationSeconds, bytes: result.bytes };
  }

  /**
   * The pipeline into a sink that keeps nothing and notes when each chunk's MP3 reached it (ms after the
   * call): what a listener of the pipeline itself would get, with no file, store or HTTP in between.
   */
  async timed(req: SynthesisRequest): Promise<{ ms: number; audioSeconds: number; bytes: number; chunks: number; writesMs: number[] }> {
    const writesMs: number[] = [];
    const started = performance.now();
    const result = await this.synth.synthesize(req, { write: async () => void writesMs.push(performance.now() - started) });
    return { ms: performance.now() - started, audioSeconds: result.durationSeconds, bytes: result.bytes, chunks: result.chunks, writesMs };
  }

  async close(): Promise<void> {
    await this.synth.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
