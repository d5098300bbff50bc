/** One submission of a load run, followed from its POST to its audio (or its error). */
import { defined } from './defined.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_PATH } from '../contract/limits.js';
import { type Answer, type ExchangeFailure, USER_AGENT, apiError, download, exchange, firstByte } from './exchange.js';
import type { Recorder } from './recorder.js';
import type { KeySpreader } from './schedule.js';
import type { LoadSettings } from './settings.js';
import type { Submission } from './workload.js';

/** What every submission of a run shares. */
export interface RunContext {
  settings: LoadSettings;
  baseUrl: string;
  signal: AbortSignal;
  /** Full API keys (never printed). */
  keys: readonly string[];
  recorder: Recorder;
  spreader: KeySpreader;
  runId: string;
  /** Milliseconds since the run started, on the performance clock. */
  now: () => number;
}

/**
 * Follows one submission to its end: POST it with a key of the spreader, poll a 202 at its
 * retry_after_seconds, download the audio, and record each step and how it ended.
 */
export async function follow(run: RunContext, sub: Submission, dueMs: number): Promise<void> {
  const { settings, baseUrl, signal, recorder, spreader, now } = run;
  const sentAt = now();
  const { key, withinLimit } = spreader.take(sentAt);
  recorder.onSent(sentAt, sentAt - dueMs, key, withinLimit, sub.asksTimings);
  const apiKey = defined(run.keys[key], `key ${key} of the spreader`);
  const fail = (code: string, message: string) => recorder.onError(now(), code, message);
  // With --stream, the first audio byte of the job's stream_url, listened for while the job is polled.
  let streaming: Promise<void> | undefined;
  try {
    let answer: Answer;
    try {
      answer = await exchange(
        `${baseUrl}${API_PATH}`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': `load-${run.runId}-${sub.n}`,
            'user-agent': USER_AGENT,
          },
          body: JSON.stringify(sub.body),
        },
        signal,
        settings.requestTimeoutMs,
      );
    } catch (error) {
      const f = error as ExchangeFailure;
      if (f.code === 'INTERRUPTED') return recorder.onInterrupted();
      recorder.onExchange('post', undefined, f.code);
      recorder.onPostAnswer(now(), undefined, undefined, key);
      return fail(f.code, `POST: ${f.message}`);
    }
    recorder.onExchange('post', answer.status);
    recorder.onPostAnswer(now(), answer.status, answer.ms, key);
    if (answer.status === 429) {
      spreader.giveBack(key, sentAt);
      return recorder.onRateLimited();
    }
    let path: 'inline' | 'job';
    let done: Answer;
    if (answer.status === 200 && answer.body?.status === 'completed') {
      path = 'inline';
      recorder.onPath(path);
      done = answer;
    } else if (answer.status === 202 && typeof answer.body?.job_id === 'string') {
      path = 'job';
      recorder.onPath(path);
      if (settings.stream) streaming = listen(run, answer.body.stream_url, sentAt);
      recorder.polling++;
      const polled = await poll(run, answer, apiKey, sentAt).finally(() => recorder.polling--);
      if (polled === 'interrupted') return recorder.onInterrupted();
      if ('error' in polled) return fail(polled.error.code, polled.error.message);
      done = polled.done;
    } else {
      const { code, message } = apiError(answer);
      return fail(code, `POST answered ${answer.status}: ${message}`);
    }
    recorder.onTimings(sub.asksTimings, hasTimings(done.body));
    await deliver(run, done, path, sentAt);
  } catch (error) {
    if (signal.aborted) return recorder.onInterrupted();
    fail('CLIENT_ERROR', (error as Error).message);
  } finally {
    await streaming;
  }
}

/**
 * Opens a 202 job's stream_url (when the answer has one) and records when its first audio byte came,
 * counted from the POST (`sentAt`), as time to audio is; the stream is closed at that byte. Never throws:
 * a stream that fails is counted by its code, and one cut short by the run's end is not counted.
 */
async function listen(run: RunContext, streamUrl: unknown, sentAt: number): Promise<void> {
  const { settings, baseUrl, signal, recorder, now } = run;
  recorder.onStreamOffered(typeof streamUrl === 'string');
  if (typeof streamUrl !== 'string') return;
  try {
    const openedAt = now();
    const got = await firstByte(new URL(streamUrl, baseUrl).toString(), signal, settings.requestTimeoutMs);
    if (got.status !== 200) recorder.onStreamFailed(`HTTP_${got.status}`);
    else if (got.bytes === 0) recorder.onStreamFailed('EMPTY');
    else recorder.onStreamFirstByte(openedAt + got.ms - sentAt);
  } catch (error) {
    const f = error as ExchangeFailure;
    if (f.code !== 'INTERRUPTED') recorder.onStreamFailed(f.code ?? 'CLIENT_ERROR');
  }
}

/** Downloads the audio of a completed answer and records the submission as completed, or how it failed. */
async function deliver(run: RunContext, done: Answer, path: 'inline' | 'job', sentAt: number): Promise<void> {
  const { settings, baseUrl, signal, recorder, now } = run;
  const fail = (code: string, message: string) => recorder.onError(now(), code, message);
  const audioUrl = done.body?.audio_url;
  if (typeof audioUrl !== 'string') return fail('BAD_ANSWER', 'completed job without audio_url');
  let got;
  try {
    got = await download(new URL(audioUrl, baseUrl).toString(), signal, settings.requestTimeoutMs);
  } catch (error) {
    const f = error as ExchangeFailure;
    if (f.code === 'INTERRUPTED') return recorder.onInterrupted();
    recorder.onExchange('download', undefined, f.code);
    return fail(`DOWNLOAD_${f.code}`, `audio download: ${f.message}`);
  }
  recorder.onExchange('download', got.status);
  if (got.status !== 200 || got.bytes === 0) return fail('DOWNLOAD_FAILED', `audio download answered ${got.status} with ${got.bytes} bytes`);
  recorder.onDownload(got.ms, got.bytes);
  const seconds = done.body?.audio?.duration_seconds;
  const endedAt = now();
  recorder.onCompleted(endedAt, path, endedAt - sentAt, typeof seconds === 'number' ? seconds : undefined);
}

/** A completed answer carries timings: the three signed URLs of its captions (docs/api-rules.md#word-timings-and-captions). */
// biome-ignore lint/suspicious/noExplicitAny: a server's JSON answer, read field by field
function hasTimings(body: any): boolean {
  const t = body?.timings;
  return typeof t?.json_url === 'string' && typeof t?.vtt_url === 'string' && typeof t?.srt_url === 'string';
}

/** Polls a 202 job at its retry_after_seconds (and a 429's Retry-After) until it ends or the job timeout passes. */
async function poll(
  run: RunContext,
  first: Answer,
  apiKey: string,
  sentAt: number,
): Promise<{ done: Answer } | { error: { code: string; message: string } } | 'interrupted'> {
  const { settings, baseUrl, signal, recorder, now } = run;
  const statusUrl = new URL(
    typeof first.body.status_url === 'string' ? first.body.status_url : `${API_PATH}?id=${encodeURIComponent(first.body.job_id)}`,
    `${baseUrl}/`,
  ).toString();
  let waitS = Number(first.body.retry_after_seconds) || 1;
  let polls = 0;
  const deadline = sentAt + settings.jobTimeoutMs;
  const finish = <T>(value: T): T => {
    recorder.onPollsDone(polls);
    return value;
  };
  for (;;) {
    const waitMs = Math.max(0, Math.min(waitS * 1000, deadline - now()));
    try {
      await sleep(waitMs, undefined, { signal });
    } catch {
      return 'interrupted';
    }
    if (now() >= deadline) return finish({ error: { code: 'JOB_TIMEOUT', message: `job ${first.body.job_id} still processing after the job timeout` } });
    let answer: Answer;
    polls++;
    try {
      answer = await exchange(statusUrl, { headers: { authorization: `Bearer ${apiKey}`, 'user-agent': USER_AGENT } }, signal, settings.requestTimeoutMs);
    } catch (error) {
      const f = error as ExchangeFailure;
      if (f.code === 'INTERRUPTED') return 'interrupted';
      recorder.onExchange('poll', undefined, f.code);
      waitS = Math.max(1, waitS);
      continue; // a client polls again after a transport failure
    }
    recorder.onExchange('poll', answer.status);
    if (answer.status === 429) {
      waitS = Math.max(1, Number(answer.headers.get('retry-after')) || 1);
      continue;
    }
    if (answer.status >= 500) {
      waitS = Math.max(1, waitS);
      continue;
    }
    if (answer.status === 200 && answer.body?.status === 'processing') {
      waitS = Number(answer.body.retry_after_seconds) || 1;
      continue;
    }
    if (answer.status === 200 && answer.body?.status === 'completed') return finish({ done: answer });
    const { code, message } = apiError(answer);
    const status = answer.body?.status;
    return finish({
      error: { code, message: `job ${first.body.job_id}: GET answered ${answer.status}${typeof status === 'string' ? ` status ${status}` : ''}: ${message}` },
    });
  }
}
