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
  }),
  legacy_expired_job: z.object({ key: fullKey, job_id: z.string().uuid() }).optional(),
  cors: z
    .object({
      allowed_origins: z.array(z.string().url()).min(1),
      denied_origin: z.string().url(),
    })
    .optional(),
});

export type ConformanceFixturesT = z.infer<typeof ConformanceFixtures>;
