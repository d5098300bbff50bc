import { AUDIO_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed audio URLs: the signature (HMAC-SHA256 over job id and expiry, base64url) is the capability,
 * so the download needs no Authorization header and can be handed to a player.
 */
export class AudioUrlSigner {
  constructor(
    private readonly secret: string,
    private readonly ttlSeconds: number,
  ) {}

  private signature(jobId: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${jobId}.${expires}`).digest('base64url');
  }

  sign(baseUrl: string, jobId: string, now: number): string {
    const expires = Math.floor(now / 1000) + this.ttlSeconds;
    return `${baseUrl}${AUDIO_PATH_PREFIX}${jobId}.mp3?expires=${expires}&sig=${this.signature(jobId, expires)}`;
  }

  /** True when the signature matches and has not expired. */
  verify(jobId: string, expires: string, sig: string, now: number): boolean {
    if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return false;
    const expected = Buffer.from(this.signature(jobId, Number(expires)));
    const presented = Buffer.from(sig);
    if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return false;
    return Number(expires) * 1000 > now;
  }

  secondsLeft(expires: string, now: number): number {
    return Math.max(0, Number(expires) - Math.floor(now / 1000));
  }
}
