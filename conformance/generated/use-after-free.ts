import type { Exchange } from '../exchange.js';
import { RuleFailure } from '../outcome.js';
import type { RuleContext } from '../rule-context.js';
import { answerChecks, mustHaveAnswer } from './answers.js';
import { type Violation, checkGone, describeViolations } from './checks.js';
import { generatedRuns } from './generation.js';
import { links } from './links.js';

/**
 * The generated.use-after-free rule: an audio URL past its expiry and a job past its retention stay
 * gone, moved there on a test clock, else the fixtures' expired audio URL.
 */

/** Longest retention of docs/api-rules.md#retention (30 days, Ultimate) and a day more. */
const PAST_RETENTION_SECONDS = 31 * 86_400;

export async function useAfterFree(ctx: RuleContext): Promise<void> {
  generatedRuns(ctx);
  const { jobs } = await links(ctx);
  const violations: Violation[] = [];
  const judged = (exchange: Exchange, what: string) => {
    mustHaveAnswer(exchange);
    violations.push(...answerChecks(ctx, exchange), ...checkGone(exchange, what));
  };
  const expired = ctx.fixtures.expired_audio;
  if (expired) {
    // The fixtures' audio URL whose expiry has passed stays gone, asked twice.
    for (const attempt of ['', ' again'])
      judged(
        await ctx.send({ method: 'GET', url: expired.audio_url, label: `the fixtures' expired audio_url${attempt}` }),
        `the expired audio_url of the fixtures${attempt}`,
      );
  }
  const job = jobs[0];
  if (!ctx.time.clock) {
    ctx.note(
      'this deployment offers no test clock (fixtures clock.url), so the audio URL of a followed job was not waited out past its expiry, nor the job past its retention; ' +
        (expired ? "the fixtures' expired audio URL was checked instead" : 'and the fixtures have no expired_audio to check instead'),
    );
  } else if (!job) {
    ctx.note('no followed job completed (see generated.links), so there was no audio URL to let expire');
  } else {
    const expires = Number(new URL(job.audioUrl).searchParams.get('expires'));
    if (Number.isFinite(expires) && expires > 0) {
      await ctx.time.sleep(Math.max(0, expires * 1000 - ctx.time.now()) + 2_000);
      judged(await ctx.send({ method: 'GET', url: job.audioUrl, label: 'audio_url after its expiry' }), `the audio_url of job ${job.jobId} after its expiry`);
    }
    await ctx.time.sleep(PAST_RETENTION_SECONDS * 1000);
    const poll = await ctx.send({ method: 'GET', url: job.statusUrl, key: job.key, label: 'status_url after the retention period' });
    judged(poll, `job ${job.jobId} after ${PAST_RETENTION_SECONDS / 86_400} days (past every plan's retention)`);
    ctx.note(`moved the test clock past the audio URL's expiry and ${PAST_RETENTION_SECONDS / 86_400} days past the submission of job ${job.jobId}`);
  }
  if (violations.length > 0) throw new RuleFailure(describeViolations(violations));
}
