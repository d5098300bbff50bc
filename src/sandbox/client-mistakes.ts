/**
 * The mistakes of API clients that the journal can see from the sandbox, and the flags it puts on the
 * entry that made them: waits not taken, retries without an Idempotency-Key, Idempotency-Keys misused.
 */
import { asksForNewIdempotencyKey, NEW_IDEMPOTENCY_KEY_PHRASE } from '@agent-tts/contract/errors.js';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { canonicalBody } from './journal-body.js';
import type { Flag, JournalEntry, RecordedRequest } from './journal-entry.js';

/** A POST resent without an Idempotency-Key this soon (sandbox seconds) after the same POST counts as a retry. */
const RETRY_WINDOW_SECONDS = 30;

/** What the journal remembers of earlier requests, per API key, to see the mistakes of later ones. */
export class ClientMistakes {
  /** Per key and job: when the job was last reported processing, and the retry_after_seconds given. */
  private readonly pollAdvice = new Map<string, { at: number; seconds: number }>();
  /** Per key and bucket (post/get): until when the last 429 asked the client to wait. */
  private readonly blockedUntil = new Map<string, number>();
  /** Per key: the last POST without an Idempotency-Key (its body, time and whether it failed). */
  private readonly lastPost = new Map<string, { body: string; at: number; failed: boolean }>();
  /**
   * Per key and Idempotency-Key bound to a job: the body it was first sent with, its job, and the entry
   * whose answer asked for a new Idempotency-Key (the job failed), if one did.
   */
  private readonly idempotencyKeys = new Map<string, { body: string; jobId: string; newKeyAskedBy?: number }>();
  /** Per key and job: the Idempotency-Key that made it. */
  private readonly jobKeys = new Map<string, string>();

  /** The flags a request of this key earns, with its entry's id and the time it was sent (`now`). */
  flagsOf(key: string, id: number, request: RecordedRequest, response: JournalEntry['response'], errorMessage: string | undefined, now: number): Flag[] {
    return [...this.retryFlags(key, request, response, now), ...this.idempotencyFlags(key, id, request, response, errorMessage)];
  }

  /** Forgets every earlier request. */
  clear(): void {
    this.idempotencyKeys.clear();
    this.jobKeys.clear();
    this.pollAdvice.clear();
    this.blockedUntil.clear();
    this.lastPost.clear();
  }

  /**
   * Mistakes of pacing and retrying: sent before the Retry-After of the last 429 elapsed, polled sooner
   * than retry_after_seconds, the same POST sent again without an Idempotency-Key.
   */
  private retryFlags(key: string, request: RecordedRequest, response: JournalEntry['response'], now: number): Flag[] {
    if (request.path !== API_PATH) return [];
    const flags: Flag[] = [];
    const bucket = `${key} ${request.method === 'POST' ? 'post' : 'get'}`;
    const blocked = this.blockedUntil.get(bucket);
    if (blocked !== undefined && now < blocked) {
      flags.push({
        code: 'RETRIED_BEFORE_RETRY_AFTER',
        message: `Sent ${((blocked - now) / 1000).toFixed(1)} s before the Retry-After of the last 429 on this key's ${request.method} bucket elapsed; wait Retry-After seconds before retrying.`,
      });
    }
    if (response.status === 429 && response.retry_after_header !== undefined) this.blockedUntil.set(bucket, now + response.retry_after_header * 1000);

    if (request.method === 'GET' && request.query.id) {
      const advice = this.pollAdvice.get(`${key} ${request.query.id.toLowerCase()}`);
      if (advice && now < advice.at + advice.seconds * 1000) {
        flags.push({
          code: 'POLLED_TOO_SOON',
          message: `Polled ${((now - advice.at) / 1000).toFixed(1)} s after being told retry_after_seconds: ${advice.seconds}; wait that long between polls.`,
        });
      }
    }
    if (response.job_id && response.retry_after_seconds !== undefined) {
      this.pollAdvice.set(`${key} ${response.job_id}`, { at: now, seconds: response.retry_after_seconds });
    }

    if (request.method === 'POST' && request.bodyText !== undefined) {
      const hasKey = Object.keys(request.headers).includes('idempotency-key');
      const last = this.lastPost.get(key);
      if (!hasKey && last && last.body === request.bodyText && (last.failed || now - last.at < RETRY_WINDOW_SECONDS * 1000)) {
        flags.push({
          code: 'RETRY_WITHOUT_IDEMPOTENCY_KEY',
          message: `The same POST was sent ${((now - last.at) / 1000).toFixed(1)} s earlier${last.failed ? ' and failed' : ''}; a retry without an Idempotency-Key can create (and charge) a second job. Send one Idempotency-Key per logical submission.`,
        });
      }
      if (!hasKey) this.lastPost.set(key, { body: request.bodyText, at: now, failed: response.status >= 400 });
      else this.lastPost.delete(key);
    }
    return flags;
  }

  /**
   * Mistakes with Idempotency-Keys: reusing one after an answer asked for a new one (docs/api-rules.md#idempotency
   * rule 5: the service replays the failed job instead of trying again), and reusing one for a different body
   * (the service replays the key's first job: the key alone decides).
   */
  private idempotencyFlags(key: string, id: number, request: RecordedRequest, response: JournalEntry['response'], errorMessage: string | undefined): Flag[] {
    if (request.path !== API_PATH) return [];
    const asksNewKey = errorMessage !== undefined && asksForNewIdempotencyKey(errorMessage);
    if (request.method === 'GET') {
      // A poll that reports the job failed, asking for a new key: the key that made the job is spent.
      const idem = response.job_id ? this.jobKeys.get(`${key} ${response.job_id}`) : undefined;
      const bound = idem === undefined ? undefined : this.idempotencyKeys.get(`${key} ${idem}`);
      if (bound && asksNewKey) bound.newKeyAskedBy ??= id;
      return [];
    }
    const idem = request.method === 'POST' ? request.headers['idempotency-key'] : undefined;
    if (idem === undefined || request.bodyText === undefined) return [];
    const flags: Flag[] = [];
    const bound = this.idempotencyKeys.get(`${key} ${idem}`);
    const shown = JSON.stringify(idem.length > 80 ? `${idem.slice(0, 80)}…` : idem);
    if (bound?.newKeyAskedBy !== undefined) {
      flags.push({
        code: 'IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED',
        message:
          `Idempotency-Key ${shown} was sent again after the answer to request #${bound.newKeyAskedBy} asked for a ${NEW_IDEMPOTENCY_KEY_PHRASE} ` +
          `(job ${bound.jobId} failed): the service answers with that failed job instead of trying again. Retry with a fresh key.`,
      });
    }
    if (bound && canonicalBody(request.bodyText) !== bound.body) {
      flags.push({
        code: 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY',
        message:
          `Idempotency-Key ${shown} was first sent with a different body (job ${bound.jobId}); the service answers with that job, not this request's text. ` +
          'Send one key per logical submission: a different text needs a new key.',
      });
    }
    // A key is bound by the answer that names its job (docs/api-rules.md#idempotency: a refused request binds nothing).
    if (!bound && response.job_id) {
      this.idempotencyKeys.set(`${key} ${idem}`, {
        body: canonicalBody(request.bodyText),
        jobId: response.job_id,
        ...(asksNewKey ? { newKeyAskedBy: id } : {}),
      });
      this.jobKeys.set(`${key} ${response.job_id}`, idem);
    } else if (bound && asksNewKey) bound.newKeyAskedBy ??= id;
    return flags;
  }
}
