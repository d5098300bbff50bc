import { UUID_PATTERN, isAbsoluteUrl, must } from './assertions.js';
import { type Exchange, type JsonObject, describe } from './exchange.js';

/** The fields docs/api-rules.md#jobs gives a completed job, and only those a completed job has (meta: see the meta rules). */
export function mustBeCompletedJob(exchange: Exchange, body: JsonObject): void {
  const at = describe(exchange);
  must(body.success === true, `${at}: success is ${JSON.stringify(body.success)}, not true`);
  must(body.status === 'completed', `${at}: status is ${JSON.stringify(body.status)}, not "completed"`);
  must(typeof body.job_id === 'string' && UUID_PATTERN.test(body.job_id), `${at}: job_id is not a UUID: ${JSON.stringify(body.job_id)}`);
  must(isAbsoluteUrl(body.audio_url), `${at}: audio_url is not an absolute URL: ${JSON.stringify(body.audio_url)}`);
  const audio = body.audio;
  must(audio && typeof audio === 'object', `${at}: audio object is missing`);
  must(typeof audio.format === 'string' && audio.format !== '', `${at}: audio.format is not a string`);
  must(typeof audio.voice === 'string' && audio.voice !== '', `${at}: audio.voice is not a string`);
  must(typeof audio.speed === 'number', `${at}: audio.speed is not a number`);
  must(
    audio.duration_seconds === undefined || (typeof audio.duration_seconds === 'number' && audio.duration_seconds >= 0),
    `${at}: audio.duration_seconds is not a number`,
  );
  const billing = body.billing;
  must(billing && typeof billing === 'object', `${at}: billing object is missing`);
  must(typeof billing.mode === 'string' && billing.mode !== '', `${at}: billing.mode is not a string`);
  for (const field of ['estimated_cost_cents', 'monthly_minutes_used', 'monthly_minutes_limit', 'monthly_minutes_remaining']) {
    must(typeof billing[field] === 'number' && billing[field] >= 0, `${at}: billing.${field} is not a non-negative number: ${JSON.stringify(billing[field])}`);
  }
  must(body.status_url === undefined, `${at}: a completed job carries status_url`);
  must(body.retry_after_seconds === undefined, `${at}: a completed job carries retry_after_seconds`);
  must(body.error === undefined, `${at}: a completed job carries an error`);
}

/** The fields docs/api-rules.md#jobs and §4.1 give a processing job, and none of a completed one. */
export function mustBeProcessingJob(exchange: Exchange, body: JsonObject): void {
  const at = describe(exchange);
  must(body.success === true, `${at}: success is ${JSON.stringify(body.success)}, not true`);
  must(body.status === 'processing', `${at}: status is ${JSON.stringify(body.status)}, not "processing"`);
  must(typeof body.job_id === 'string' && UUID_PATTERN.test(body.job_id), `${at}: job_id is not a UUID: ${JSON.stringify(body.job_id)}`);
  must(typeof body.status_url === 'string', `${at}: status_url is missing`);
  must(
    Number.isInteger(body.retry_after_seconds) && body.retry_after_seconds >= 1,
    `${at}: retry_after_seconds is not a whole number ≥ 1: ${JSON.stringify(body.retry_after_seconds)}`,
  );
  for (const field of ['audio_url', 'audio', 'billing', 'error']) must(body[field] === undefined, `${at}: a processing job carries ${field}`);
}

/** status_url is exactly `/v1/agent-tts?id=<job_id>` (docs/api-rules.md#jobs). */
export function mustHaveStatusUrlOf(exchange: Exchange, body: JsonObject): void {
  const expected = `/v1/agent-tts?id=${body.job_id}`;
  must(body.status_url === expected, `${describe(exchange)}: status_url is ${JSON.stringify(body.status_url)}, not "${expected}"`);
}
