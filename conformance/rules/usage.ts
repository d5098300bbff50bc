import { isAbsoluteUrl, must, mustError, mustStatus } from '../assertions.js';
import { describe } from '../exchange.js';
import { preferExample } from '../mock-requests.js';
import type { Exchange } from '../exchange.js';
import type { Rule } from '../rule.js';
import { SHORT_TEXT, completedBody, twoJobsOneAccount } from '../scenarios.js';

function mustUsageDetails(exchange: Exchange): void {
  const body = mustError(exchange, 'USAGE_LIMIT_EXCEEDED');
  const d = body.error.details;
  must(d && typeof d === 'object', `${describe(exchange)}: error.details is missing`);
  must(typeof d.limit === 'number' && d.limit >= 0, `${describe(exchange)}: details.limit is ${JSON.stringify(d.limit)}, not a number`);
  must(typeof d.used === 'number' && d.used >= 0, `${describe(exchange)}: details.used is ${JSON.stringify(d.used)}, not a number`);
  must(typeof d.tier === 'string' && d.tier.trim() !== '', `${describe(exchange)}: details.tier is ${JSON.stringify(d.tier)}, not a string`);
  must(isAbsoluteUrl(d.upgrade_url), `${describe(exchange)}: details.upgrade_url is ${JSON.stringify(d.upgrade_url)}, not a URL`);
}

export const usageRules: Rule[] = [
  {
    id: 'usage.limit-exceeded',
    title: 'An account with its monthly minutes exhausted gets 403 USAGE_LIMIT_EXCEEDED with details limit, used, tier and upgrade_url',
    section: '§7',
    basis: { kind: 'api' },
    covers: { codes: ['USAGE_LIMIT_EXCEEDED'], statuses: [403] },
    async full(ctx) {
      const key = ctx.fixtureKey('usage_exhausted');
      mustUsageDetails(await ctx.post(key, { text: SHORT_TEXT }, { label: 'account with no minutes left' }));
    },
    async mock(ctx) {
      mustUsageDetails(await preferExample(ctx, 'submit', 403, 'usage_limit_exceeded'));
    },
  },
  {
    id: 'billing.grows-with-new-jobs',
    title: 'billing.monthly_minutes_used grows with each new job, by that job’s minutes',
    section: '§1, §2.2 billing',
    basis: { kind: 'api' },
    mockSkip: 'a mock keeps no usage',
    async full(ctx) {
      const { first, second } = await twoJobsOneAccount(ctx);
      mustStatus(second.post, 200, 202);
      const a = completedBody(first);
      const b = completedBody(second);
      const before = a.billing.monthly_minutes_used;
      const after = b.billing.monthly_minutes_used;
      must(after > before, `monthly_minutes_used did not grow with a new job: ${before} → ${after}`);
      const duration = b.audio?.duration_seconds;
      if (typeof duration === 'number') {
        const delta = Math.round((after - before) * 100) / 100;
        must(
          Math.abs(delta - duration / 60) <= 0.015,
          `monthly_minutes_used grew by ${delta}, the job lasted ${duration} s (${(duration / 60).toFixed(3)} minutes)`,
        );
      }
    },
  },
];
