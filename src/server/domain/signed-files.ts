import { renderSrt, renderWebVtt } from '@agent-tts/contract/captions.js';
import type { CaptionFormat, WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import type { Clock, JobRepository } from '../ports/index.js';
import type { AudioStorage, JobFile } from './job-files.js';
import { isLegacyExpired } from './job-state.js';
import { LiveAudio } from './live-audio.js';
import type { AudioUrlSigner } from './signing.js';

/** One file a signed URL opens: its size, how long the URL still holds, and its bytes on demand. */
export interface SignedFile {
  size: number;
  /** Seconds until the URL's signature expires (for Cache-Control). */
  secondsLeft: number;
  /** The file whole, or one inclusive byte range already checked against `size`; undefined when it went away since. */
  open(range?: { start: number; end: number }): Promise<ReadableStream<Uint8Array> | undefined>;
}

export interface SignedFilesDeps {
  store: Pick<JobRepository, 'getJob'>;
  audio: AudioStorage;
  signer: AudioUrlSigner;
  /** Signature expiry and legacy expiry are judged on it. */
  clock: Clock;
  /** The audio of the jobs this process runs, while they run (default: none here; stream listeners wait for the stored file). */
  live?: LiveAudio;
}

/** The audio of a job behind its stream URL: as it is made, or the stored file once completed. */
export interface StreamedFile {
  /** Seconds until the URL's signature expires. */
  secondsLeft: number;
  /** The audio from byte 0; errors (StreamEndedError) when the job fails before it is complete. */
  open(): ReadableStream<Uint8Array>;
}

/**
 * The files behind signed URLs (docs/api-rules.md#audio-urls): a job's audio, and its word timings and
 * captions (docs/api-rules.md#word-timings-and-captions). The rule is one for all of them: the
 * signature verifies at the clock's time, the job exists and is completed (and, for timings, asked
 * for word timings), it is not a legacy job past its expiry, and the file is stored. Anything else is
 * undefined: the caller answers every such refusal alike. An audio storage that cannot be reached
 * throws its error (outageOf in errors.ts names it).
 *
 * A job completed before its WebVTT and SRT were stored has them rendered from its word timings once,
 * on the first request, and stored beside them; concurrent first requests for one job and format
 * share one rendering (per process).
 */
export class SignedFiles {
  private readonly rendering = new Map<string, Promise<{ size: number } | undefined>>();

  private readonly live: LiveAudio;

  constructor(private readonly deps: SignedFilesDeps) {
    this.live = deps.live ?? new LiveAudio({ store: deps.store, audio: deps.audio });
  }

  /** The audio `sig` signs for `jobId` until `expires`. */
  async audio(jobId: string, expires: string, sig: string): Promise<SignedFile | undefined> {
    const now = this.deps.clock.now();
    if (!this.deps.signer.verify(jobId, expires, sig, now)) return undefined;
    if (!(await this.completedJob(jobId, now, false))) return undefined;
    return this.file(jobId, 'audio', expires, now);
  }

  /**
   * The audio `sig` signs for streaming `jobId` until `expires` (docs/api-rules.md#streaming-audio): of a
   * processing job as it is made, of a completed one its stored file. Refused (undefined) as the audio
   * URL is, and for a failed job.
   */
  async stream(jobId: string, expires: string, sig: string): Promise<StreamedFile | undefined> {
    const now = this.deps.clock.now();
    if (!this.deps.signer.verifyStream(jobId, expires, sig, now)) return undefined;
    const job = await this.deps.store.getJob(jobId);
    if (!job || isLegacyExpired(job, now)) return undefined;
    if (job.status === 'completed' ? !(await this.deps.audio.stat(jobId)) : job.status !== 'processing') return undefined;
    return { secondsLeft: this.deps.signer.secondsLeft(expires, now), open: () => this.live.listen(jobId) };
  }

  /** The word timings (json) or captions (vtt, srt) `sig` signs for `jobId` in `format` until `expires`. */
  async captions(jobId: string, format: CaptionFormat, expires: string, sig: string): Promise<SignedFile | undefined> {
    const now = this.deps.clock.now();
    if (!this.deps.signer.verifyCaptions(jobId, format, expires, sig, now)) return undefined;
    if (!(await this.completedJob(jobId, now, true))) return undefined;
    return this.file(jobId, format, expires, now);
  }

  /** Whether the job is completed and not a legacy job past its expiry (and, when `timed`, asked for word timings). */
  private async completedJob(jobId: string, now: number, timed: boolean): Promise<boolean> {
    const job = await this.deps.store.getJob(jobId);
    if (job?.status !== 'completed' || isLegacyExpired(job, now)) return false;
    return !timed || job.timestamps === 'word';
  }

  private async file(jobId: string, kind: JobFile, expires: string, now: number): Promise<SignedFile | undefined> {
    const { audio, signer } = this.deps;
    let stat = await audio.stat(jobId, kind);
    if (!stat && (kind === 'vtt' || kind === 'srt')) stat = await this.renderLegacy(jobId, kind);
    if (!stat) return undefined;
    return { size: stat.size, secondsLeft: signer.secondsLeft(expires, now), open: (range) => audio.open(jobId, kind, range) };
  }

  private renderLegacy(jobId: string, format: 'vtt' | 'srt'): Promise<{ size: number } | undefined> {
    const key = `${jobId}.${format}`;
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = this.render(jobId, format).finally(() => this.rendering.delete(key));
      this.rendering.set(key, pending);
    }
    return pending;
  }

  private async render(jobId: string, format: 'vtt' | 'srt'): Promise<{ size: number } | undefined> {
    const { audio } = this.deps;
    const stored = await audio.readTimings(jobId, 'json');
    if (!stored) return undefined;
    const file = JSON.parse(new TextDecoder().decode(stored)) as WordTimingsFileBody;
    const body = new TextEncoder().encode(format === 'vtt' ? renderWebVtt(file) : renderSrt(file));
    await audio.putTimings(jobId, body, format);
    return { size: body.byteLength };
  }
}
