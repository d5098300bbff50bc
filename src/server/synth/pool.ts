import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import type { EncodeTask, EncodedChunk } from './mp3-encode.js';
import { workerFilePath } from './worker-file.js';
import type { NativeLibraries } from './native.js';
import { closeNative, nativeGuardMemory } from './native-guard.js';
import type { SynthesizeResult, SynthesizeTask, WorkerData } from './worker.js';

/**
 * The worker threads shared by every job of a synthesizer: eSpeak synthesis and MP3 encoding both run
 * here, so the main thread (which also serves HTTP) only schedules work and writes files.
 */
export class SynthesisPool {
  readonly threads: number;
  private readonly piscina: Piscina;
  private readonly guard = nativeGuardMemory();

  constructor(options: { threads?: number; warmEspeak: boolean; native?: NativeLibraries }) {
    this.threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
    const workerData: WorkerData = { warmEspeak: options.warmEspeak, guard: this.guard, ...(options.native && { native: options.native }) };
    this.piscina = new Piscina({
      filename: workerFilePath(),
      minThreads: this.threads,
      maxThreads: this.threads,
      // Warm engines are the point of the pool: threads are never retired for being idle.
      idleTimeout: Infinity,
      // Idle threads must keep their event loop running (not block in Atomics.wait) so that the
      // start-up warm-up, which reads files, finishes before the first task rather than during it.
      atomics: 'disabled',
      workerData,
    });
  }

  synthesize(task: SynthesizeTask): Promise<SynthesizeResult> {
    return this.piscina.run(task, { name: 'synthesize' });
  }

  encode(task: EncodeTask): Promise<EncodedChunk> {
    const buffer = task.samples.buffer;
    // Transfer the samples when they own their buffer; a view into a shared one is copied instead.
    const transferable = buffer instanceof ArrayBuffer && task.samples.byteOffset === 0 && task.samples.byteLength === buffer.byteLength;
    return this.piscina.run(task, { name: 'encodeChunk', transferList: transferable ? [buffer] : [] });
  }

  /** Terminates the threads, once none is inside native code (native-guard.ts: terminating one there aborts the process). */
  async destroy(): Promise<void> {
    await closeNative(this.guard, this.threads);
    await this.piscina.destroy();
  }
}
