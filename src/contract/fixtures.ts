import { z } from 'zod';

/**
 * The conformance fixtures file: what a deployment gives the conformance suite. The reference
 * server's `agent-tts-admin seed` writes it; any other deployment writes its own by hand.
 */
const fullKey = z.string().regex(/^tts_[0-9a-f]{8}_[0-9a-f]{48}$/, 'a full API key tts_<8 hex>_<48 hex>');

export const ConformanceFixtures = z.object({
  base_url: z.string().url(),
  voices_url: z.string().url().optional(),
  keys: z.object({
    /** At least 8 keys, each of its own account: active subscription, API access, ≥ 1,000 minutes left. */
    active: z.array(fullKey).min(1),
    revoked: fullKey.optional(),
    inactive_subscription: fullKey.optional(),
    no_api_access: fullKey.optional(),
    usage_exhausted: fullKey.optional(),
    /**
     * Keys for the acceptance rules only, each of its own account (active, API access, ≥ 1,000 minutes
     * left). Those rules send each key at most one POST per window and never wait for the jobs, so
     * with about 64 keys every boundary value is proven in one window; without them they use `active`.
     */
    acceptance: z.array(fullKey).optional(),
  }),
  legacy_expired_job: z.object({ key: fullKey, job_id: z.string().uuid() }).optional(),
  /**
   * A job of the key's account that failed in the speech engine (status failed, TTS_PROVIDER_ERROR),
   * for the failed-job rules when no failure can be provoked (--failing-voice).
   */
  failed_job: z.object({ key: fullKey, job_id: z.string().uuid() }).optional(),
  /**
   * A completed job of the key's account whose audio exists, and an audio_url of it whose expiry has
   * passed: the expired-URL rule downloads a fresh URL of the job, then this one.
   */
  expired_audio: z.object({ key: fullKey, job_id: z.string().uuid(), audio_url: z.string().url() }).optional(),
  cors: z
    .object({
      allowed_origins: z.array(z.string().url()).min(1),
      denied_origin: z.string().url(),
    })
    .optional(),
  /**
   * A test clock the suite may move instead of waiting (the sandbox's `/sandbox/clock`): a POST of
   * `{"advance_seconds": n}` to `url` moves the deployment's time n seconds forward and answers 200.
   * A real deployment has none.
   */
  clock: z.object({ url: z.string().url() }).optional(),
  /**
   * Request texts that make this deployment produce an outcome on demand (the sandbox's magic texts),
   * for the rules that otherwise need a long text or a failing engine. A real deployment has none.
   */
  outcomes: z
    .object({
      /**
       * Answered 200 completed inside the inline wait, by a job the deployment reports taking a few seconds
       * (meta.processing_time_ms): submit.inline-within-wait uses it instead of finding such a text by measuring.
       */
      inline_text: z.string().min(1).optional(),
      /** Answered 202 processing, and completed later (when the deployment's clock has moved on): the long-job rules use it instead of a long text. */
      async_text: z.string().min(1).optional(),
      /** The speech engine fails the job inside the inline wait: 502 TTS_PROVIDER_ERROR (as a voice named with --failing-voice). */
      provider_error_text: z.string().min(1).optional(),
      /** Answered 500 INTERNAL_ERROR: errors.internal-error then also judges a 500 it provoked. */
      internal_error_text: z.string().min(1).optional(),
    })
    .optional(),
});

export type ConformanceFixturesT = z.infer<typeof ConformanceFixtures>;
