import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_PATH } from '../contract/limits.js';
import { BUCKET_STEPS_S } from './charts.js';
import { Recorder } from './recorder.js';
import { KeySpreader, Schedule } from './schedule.js';
import type { LoadSettings } from './settings.js';
import { Workload, type Submission } from './workload.js';

export const USER_AGENT = 'agent-tts-load/0.1.0';

export interface RunOptions {
  settings: LoadSettings;
  baseUrl: string;
  /** Full API keys (never printed) and their display forms, index for index. */
  keys: readonly string[];
  keyDisplays: readonly string[];
  /** Aborted on Ctrl-C: nothing more is sent and every exchange in flight is dropped. */
  signal: AbortSignal;
  /** Called once the run has started, with what it records into (for a progress line). */
  onStart?: (recorder: Recorder, schedule: Schedule, startedAtPerfMs: number) => void;
}

export interface RunResult {
  recorder: Recorder;
  startedAt: Date;
  endedAt: Date;
  elapsedMs: number;
  /** How much of the schedule ran (all of it unless stopped early). */
  scheduleElapsedMs: number;
  interrupted: boolean;
  /** Why sending stopped: the schedule ended, --max-requests was reached, or Ctrl-C. */
  stoppedBy: 'schedule' | 'max-requests' | 'interrupt';
  eventLoopDelayP99Ms: number | null;
  clientCpuPercent: number | null;
  runId: string;
}

/** A failure of one exchange without an answer, named for the counts. */
class ExchangeFailure extends Error {
  constructor(
    readonly code: 'NETWORK_ERROR' | 'TIMEOUT' | 'INTERRUPTED',
    message: string,
  ) {
    super(message);
  }
}

function failureOf(error: unknown, signal: AbortSignal): ExchangeFailure {
  if (signal.aborted) return new ExchangeFailure('INTERRUPTED', 'interrupted');
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return new ExchangeFailure('TIMEOUT', 'no answer within the request timeout');
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
  return new ExchangeFailure('NETWORK_ERROR', `${e?.message ?? 'fetch failed'}${cause && cause !== e?.message ? ` (${cause})` : ''}`);
}

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: a server's JSON answer, read field by field with optional chains and typeof checks
  body: any;
  ms: number;
}

/**
 * Waits until `now()` reaches `dueMs`. A timer can wake a fraction of a millisecond early by the
 * performance clock (timers count whole milliseconds): waiting again for the rest keeps every
 * submission from going out before its due time.
 */
export async function sleepUntil(dueMs: number, now: () => number, sleepFor: (ms: number) => Promise<unknown>): Promise<void> {
  for (let wait = dueMs - now(); wait > 0; wait = dueMs - now()) await sleepFor(wait);
}

/**
 * Runs the workload: submissions go out on the open-loop schedule whatever happened to the earlier
 * ones; each is followed to its end (inline answer, or polling a 202 at its retry_after_seconds), and
 * its audio downloaded. Resolves when every submission has ended, or at once after an abort.
 */
export async function runLoad(opts: RunOptions): Promise<RunResult> {
  const { settings, baseUrl, signal } = opts;
  // Every exchange and every wait listens to the run's signal: hundreds at once is expected, not a leak.
  setMaxListeners(0, signal);
  const schedule = new Schedule(settings.stages, settings.startRate);
  // The recorder's own bucket: at most ~600 of them; a step of the charts' list, so theirs are multiples of it.
  const bucketMs = (BUCKET_STEPS_S.find((s) => schedule.totalMs / 1000 / s <= 600) ?? BUCKET_STEPS_S[BUCKET_STEPS_S.length - 1]) * 1000;
  const recorder = new Recorder(bucketMs, opts.keyDisplays);
  const spreader = new KeySpreader(opts.keys.length, settings.postLimit, settings.rateWindowSeconds * 1000);
  const workload = new Workload(settings.mix, settings.voices, settings.speeds, settings.language, settings.seed);
  const runId = randomBytes(4).toString('hex');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  const startedAt = new Date();
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const inFlight = new Set<Promise<void>>();
  opts.onStart?.(recorder, schedule, t0);

  /** One HTTP exchange with the whole body read; the request timeout and the run's abort both end it. */
  async function exchange(url: string, init: RequestInit): Promise<Answer> {
    const started = performance.now();
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(settings.requestTimeoutMs)]) });
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: res.status, headers: res.headers, body, ms: performance.now() - started };
    } catch (error) {
      throw failureOf(error, signal);
    }
  }

  /** Downloads the audio, counting its bytes without keeping them. */
  async function download(url: string): Promise<{ status: number; bytes: number; ms: number }> {
    const started = performance.now();
    try {
      const res = await fetch(url, {
        headers: { 'user-agent': USER_AGENT },
        signal: AbortSignal.any([signal, AbortSignal.timeout(settings.requestTimeoutMs)]),
      });
      let bytes = 0;
      if (res.body) {
        const reader = res.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
        }
      }
      return { status: res.status, bytes, ms: performance.now() - started };
    } catch (error) {
      throw failureOf(error, signal);
    }
  }

  const apiError = (answer: Answer): { code: string; message: string } => {
    const err = answer.body?.error;
    if (err && typeof err.code === 'string') return { code: err.code, message: typeof err.message === 'string' ? err.message : '' };
    return { code: `HTTP_${answer.status}`, message: answer.body === undefined ? 'answer is not JSON' : 'answer without an error body' };
  };

  async function follow(sub: Submission, dueMs: number): Promise<void> {
    const sentAt = now();
    const { key, withinLimit } = spreader.take(sentAt);
    recorder.onSent(sentAt, sentAt - dueMs, key, withinLimit);
    const apiKey = opts.keys[key]!;
    const fail = (code: string, message: string) => recorder.onError(now(), code, message);
    try {
      let answer: Answer;
      try {
        answer = await exchange(`${baseUrl}${API_PATH}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': `load-${runId}-${sub.n}`,
            'user-agent': USER_AGENT,
          },
          body: JSON.stringify(sub.body),
        });
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
        recorder.polling++;
        const polled = await poll(answer, apiKey, sentAt).finally(() => recorder.polling--);
        if (polled === 'interrupted') return recorder.onInterrupted();
        if ('error' in polled) return fail(polled.error.code, polled.error.message);
        done = polled.done;
      } else {
        const { code, message } = apiError(answer);
        return fail(code, `POST answered ${answer.status}: ${message}`);
      }
      const audioUrl = done.body?.audio_url;
      if (typeof audioUrl !== 'string') return fail('BAD_ANSWER', 'completed job without audio_url');
      let got;
      try {
        got = await download(new URL(audioUrl, baseUrl).toString());
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
    } catch (error) {
      if (signal.aborted) return recorder.onInterrupted();
      fail('CLIENT_ERROR', (error as Error).message);
    }
  }

  /** Polls a 202 job at its retry_after_seconds (and a 429's Retry-After) until it ends or the job timeout passes. */
  async function poll(first: Answer, apiKey: string, sentAt: number): Promise<{ done: Answer } | { error: { code: string; message: string } } | 'interrupted'> {
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
        answer = await exchange(statusUrl, { headers: { authorization: `Bearer ${apiKey}`, 'user-agent': USER_AGENT } });
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

  let stoppedBy: RunResult['stoppedBy'] = 'schedule';
  let n = 0;
  for (const dueMs of schedule.dueTimes()) {
    if (signal.aborted) break;
    if (settings.maxRequests !== undefined && n >= settings.maxRequests) {
      stoppedBy = 'max-requests';
      break;
    }
    try {
      await sleepUntil(dueMs, now, (ms) => sleep(ms, undefined, { signal }));
    } catch {
      break;
    }
    recorder.onDue(dueMs);
    const sub = workload.next(n++);
    const p = follow(sub, dueMs);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  if (signal.aborted) stoppedBy = 'interrupt';
  const scheduleElapsedMs = stoppedBy === 'schedule' ? schedule.totalMs : Math.min(schedule.totalMs, now());
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  delay.disable();
  const elapsedMs = now();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    recorder,
    startedAt,
    endedAt: new Date(),
    elapsedMs,
    scheduleElapsedMs,
    interrupted: signal.aborted,
    stoppedBy: signal.aborted ? 'interrupt' : stoppedBy,
    eventLoopDelayP99Ms: delay.count > 0 ? Math.round(delay.percentile(99) / 1e4) / 100 : null,
    clientCpuPercent: elapsedMs > 0 ? Math.round(((cpu.user + cpu.system) / 1000 / elapsedMs) * 1000) / 10 : null,
    runId,
  };
}
