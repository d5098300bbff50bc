import { AUDIO_PATH_PREFIX, CAPTIONS_PATH_PREFIX, STREAM_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { CAPTION_FORMATS, type CaptionFormat, type TimingsBody } from '@agent-tts/contract/timing-schemas.js';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed audio and caption URLs: the signature (HMAC-SHA256, base64url) is the capability, so the
 * download needs no Authorization header and can be handed to a player. An audio URL signs
 * `<job>.<expires>`; a caption URL signs `<job>.<format>.<expires>`, so that the URL of one format opens
 * no other, and none of them opens the audio; a stream URL signs `<job>.stream.<expires>` (no caption
 * format is `stream`), so that it opens only the stream.
 */
export class AudioUrlSigner {
  constructor(
    private readonly secret: string,
    private readonly ttlSeconds: number,
  ) {}

  private signature(signed: string): string {
    return createHmac('sha256', this.secret).update(signed).digest('base64url');
  }

  /** Unix seconds at which a URL issued at `now` (ms) stops working. */
  private expiresAt(now: number): number {
    return Math.floor(now / 1000) + this.ttlSeconds;
  }

  sign(baseUrl: string, jobId: string, now: number): string {
    const expires = this.expiresAt(now);
    return `${baseUrl}${AUDIO_PATH_PREFIX}${jobId}.mp3?expires=${expires}&sig=${this.signature(`${jobId}.${expires}`)}`;
  }

  /** The signed URLs of a job's word timings and captions, with the expiry `sign` gives its audio at `now`. */
  signTimings(baseUrl: string, jobId: string, now: number): TimingsBody {
    const expires = this.expiresAt(now);
    const url = (format: CaptionFormat) =>
      `${baseUrl}${CAPTIONS_PATH_PREFIX}${jobId}.${format}?expires=${expires}&sig=${this.signature(`${jobId}.${format}.${expires}`)}`;
    return { granularity: 'word', json_url: url('json'), vtt_url: url('vtt'), srt_url: url('srt') };
  }

  /** The signed URL of a job's audio while it is made, with the expiry `sign` gives its audio at `now`. */
  signStream(baseUrl: string, jobId: string, now: number): string {
    const expires = this.expiresAt(now);
    return `${baseUrl}${STREAM_PATH_PREFIX}${jobId}.mp3?expires=${expires}&sig=${this.signature(`${jobId}.stream.${expires}`)}`;
  }

  /** True when the stream URL's signature matches and has not expired. */
  verifyStream(jobId: string, expires: string, sig: string, now: number): boolean {
    return this.matches(`${jobId}.stream.${expires}`, expires, sig, now);
  }

  /** True when the audio URL's signature matches and has not expired. */
  verify(jobId: string, expires: string, sig: string, now: number): boolean {
    return this.matches(`${jobId}.${expires}`, expires, sig, now);
  }

  /** True when the caption URL's signature matches its format and has not expired. */
  verifyCaptions(jobId: string, format: string, expires: string, sig: string, now: number): boolean {
    return (CAPTION_FORMATS as readonly string[]).includes(format) && this.matches(`${jobId}.${format}.${expires}`, expires, sig, now);
  }

  private matches(signed: string, expires: string, sig: string, now: number): boolean {
    if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return false;
    const expected = Buffer.from(this.signature(signed));
    const presented = Buffer.from(sig);
    if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return false;
    return Number(expires) * 1000 > now;
  }

  secondsLeft(expires: string, now: number): number {
    return Math.max(0, Number(expires) - Math.floor(now / 1000));
  }
}
