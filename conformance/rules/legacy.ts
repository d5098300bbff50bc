import { must, mustJson, mustStatus, skip } from '../assertions.js';
import { describe } from '../exchange.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { Exchange } from '../exchange.js';

function mustBeExpired(exchange: Exchange, jobId?: string): void {
  mustStatus(exchange, 200);
  const body = mustJson(exchange);
  const at = describe(exchange);
  must(body.success === false, `${at}: success is ${JSON.stringify(body.success)}, not false`);
  must(body.status === 'expired', `${at}: status is ${JSON.stringify(body.status)}, not "expired"`);
  must(body.error?.code === 'FILE_EXPIRED', `${at}: error.code is ${JSON.stringify(body.error?.code)}, not FILE_EXPIRED`);
  must(typeof body.error?.message === 'string' && body.error.message.trim() !== '', `${at}: error.message is empty`);
  if (jobId) must(body.job_id === jobId, `${at}: job_id is ${JSON.stringify(body.job_id)}, not ${jobId}`);
  must(body.audio_url === undefined, `${at}: an expired job carries audio_url`);
}

export const legacyRules: Rule[] = [
  {
    id: 'legacy.file-expired',
    title: 'GET of a legacy job whose audio was deleted answers HTTP 200, status expired, code FILE_EXPIRED',
    section: '§3.1, §7, §9',
    basis: { kind: 'api' },
    covers: { codes: ['FILE_EXPIRED'], statuses: [200] },
    async full(ctx) {
      const legacy = ctx.fixtures.legacy_expired_job;
      if (!legacy) skip('fixture', 'the fixtures file has no legacy_expired_job');
      mustBeExpired(await ctx.getJob(legacy.key, legacy.job_id, { label: 'legacy expired job' }), legacy.job_id);
    },
    async mock(ctx) {
      mustBeExpired(await preferExample(ctx, 'get', 200, 'expired'));
    },
  },
];
