import { rateLimitedMessage } from '@agent-tts/contract/messages.js';
import type { RateLimitDecision, RateLimiter } from '../ports/index.js';

/** The two buckets of a key: POST creates jobs, GET reads them (docs/api-rules.md#rate-limits). */
export type BucketKind = 'post' | 'get';

/** Requests per window of each bucket, and the window. */
export interface RateLimitSettings {
  post: number;
  get: number;
  windowMs: number;
}

/** A key's bucket as one answer reports it (the RateLimit headers): which bucket, its state, its window. */
export interface BucketReport {
  kind: BucketKind;
  decision: RateLimitDecision;
  windowMs: number;
}

/** A request refused by its bucket: the message, and the wait it names, sent as Retry-After. */
export interface RateLimited {
  kind: 'rate_limited';
  message: string;
  retryAfterSeconds: number;
}

/**
 * The rate limits of API keys over the RateLimiter port: each key has one bucket per kind, named
 * `<kind>:<public id>`. A request takes a place in its bucket; a request refused afterwards for
 * another reason gives it back (a rejected request consumes no quota); any other answer to a known
 * key reports the bucket as it stands without taking anything.
 */
export class RateLimits {
  constructor(
    private readonly limiter: RateLimiter,
    readonly settings: RateLimitSettings,
  ) {}

  /** Takes a place in the key's bucket of this kind, if one is free. */
  take(kind: BucketKind, publicId: string): Promise<BucketReport> {
    return this.check(kind, publicId, true);
  }

  /** The key's bucket of this kind as it stands, taking nothing. */
  peek(kind: BucketKind, publicId: string): Promise<BucketReport> {
    return this.check(kind, publicId, false);
  }

  /** Gives back the place `taken` took (nothing when it took none). */
  async refund(taken: BucketReport, publicId: string): Promise<void> {
    const { admission } = taken.decision;
    if (admission !== undefined) await this.limiter.refund(bucketName(taken.kind, publicId), admission);
  }

  /** The refusal of a request its bucket did not admit. */
  refusal(refused: BucketReport): RateLimited {
    const { windowMs } = this.settings;
    const limit = this.settings[refused.kind];
    // The wait the message names is the Retry-After sent (at least 1 s).
    const wait = Math.max(1, refused.decision.resetSeconds);
    const message = rateLimitedMessage(refused.kind === 'post' ? 'POST' : 'GET', limit, windowMs / 1000, wait);
    return { kind: 'rate_limited', message, retryAfterSeconds: wait };
  }

  private async check(kind: BucketKind, publicId: string, consume: boolean): Promise<BucketReport> {
    const { windowMs } = this.settings;
    const decision = await this.limiter.check(bucketName(kind, publicId), this.settings[kind], windowMs, consume);
    return { kind, decision, windowMs };
  }
}

const bucketName = (kind: BucketKind, publicId: string) => `${kind}:${publicId}`;
