import createClient, { type Client } from 'openapi-fetch';
import { API_PATH } from '../contract/limits.js';
import { assertJobBody, invalidJson, isObject } from './answers.js';
import { systemClock, type ClientClock } from './clock.js';
import { AgentTtsError, errorFromResponse, notThisApi, parseRetryAfter, stripQuery } from './errors.js';
import type { paths } from './openapi-types.js';
import { checkUrl, ownHeaders } from './options.js';
import type { AgentTtsClientOptions, AudioDownload, CallOptions, SpeakOptions, SubmitOptions, SubmitResult } from './options.js';
import { DEFAULT_POLL_TIMEOUT_MS, jobError, pollJob, type PollOptions } from './poll.js';
import { type ResponseInfo, responseInfo, type SpeakResult, type WithResponse, withResponse, withSubmitResponse } from './response.js';
import { abortError, resolveRetryPolicy, type RetryPolicy } from './retry.js';
import { withRetries } from './transport.js';
import { openStream, type StreamableJob } from './stream.js';
import { type Bounded, bounded, resubmitDelayMs } from './deadline.js';
import {
  asTimingsFile,
  CAPTION_FORMATS,
  type CaptionFormat,
  fetchSigned,
  type JobLike,
  type JobWithTimings,
  type SignedFetchDeps,
  type SignedFile,
  urlOf,
} from './signed-download.js';
import type { CompletedJob, JobStatus, RetryEvent, SpeechRequest, VoiceCatalog, WordTimingsFile } from './types.js';
import { USER_AGENT } from './version.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

function newKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Typed client of the text-to-speech job API, over openapi-fetch and the generated `paths` types.
 * Works in Node and browsers: no Node built-ins here (file helpers live in `./node.js`).
 */
export class AgentTtsClient {
  readonly baseUrl: string;
  readonly voicesUrl?: string;
  private readonly api: Client<paths>;
  private readonly catalog?: Client<paths>;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly downloadTimeoutMs: number;
  private readonly onRetry?: (event: RetryEvent) => void;
  private readonly fetchImpl: typeof globalThis.fetch;
  /** What the client waits in and measures with (the `clock` option). */
  readonly clock: ClientClock;

  constructor(options: AgentTtsClientOptions = {}) {
    this.baseUrl = checkUrl(options.baseUrl ?? DEFAULT_BASE_URL, 'baseUrl');
    this.voicesUrl = options.voicesUrl === undefined ? undefined : checkUrl(options.voicesUrl, 'voicesUrl');
    this.policy = resolveRetryPolicy(options.retry);
    this.timeoutMs = options.requestTimeoutMs ?? 120_000;
    this.downloadTimeoutMs = options.downloadTimeoutMs ?? 30 * 60_000;
    this.onRetry = options.onRetry;
    this.clock = options.clock ?? systemClock;
    // Looked up per call so a fetch patched after construction (tests, polyfills) is honoured.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const fetchForOpenapi = (request: Request) => this.fetchImpl(request);
    const headers: Record<string, string> = { ...ownHeaders(options.headers, 'headers') };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    const userAgent = options.userAgent === undefined ? (isBrowser() ? null : USER_AGENT) : options.userAgent;
    if (userAgent) headers['User-Agent'] = userAgent;
    this.api = createClient<paths>({ baseUrl: this.baseUrl, headers, fetch: fetchForOpenapi });
    if (this.voicesUrl) {
      // The catalog is public: it never gets the API key.
      const publicHeaders = userAgent ? { 'User-Agent': userAgent } : {};
      this.catalog = createClient<paths>({ baseUrl: this.voicesUrl, headers: publicHeaders, fetch: fetchForOpenapi });
    }
  }

  /**
   * POST the text. Resolves with the completed job (200) or the processing job (202). Retries
   * transport failures and retryable errors under §4.7; throws AgentTtsError otherwise.
   */
  async submit(request: SpeechRequest, options: SubmitOptions = {}): Promise<SubmitResult> {
    const target = `${this.baseUrl}${API_PATH}`;
    const headers = ownHeaders(options.headers, 'headers');
    const call = (options as Bounded).deadline === undefined ? bounded(options, options.clock ?? this.clock, `POST ${target}`) : options;
    return withRetries(
      { ...this.attempts('POST', target, call), idempotencyKey: options.idempotencyKey ?? newKey(), newIdempotencyKey: newKey },
      async (signal, key) => {
        const { data, error, response } = await this.api
          .POST('/v1/agent-tts', {
            // `language` is widened to any string here: the service, not the client, judges an unknown code.
            body: request as paths['/v1/agent-tts']['post']['requestBody']['content']['application/json'],
            headers: { ...headers, 'Idempotency-Key': key },
            signal,
          })
          .catch((e: unknown) => invalidJson(e, target));
        // Submitting names no job, so a 404 here means the base URL is not this API.
        if (response.status === 404) throw notThisApi(response, error, this.baseUrl, `POST ${API_PATH}`, 'the agent-tts API');
        if (error !== undefined || !response.ok) throw errorFromResponse(response, error);
        assertJobBody(data, response);
        const info = responseInfo(response, data);
        if (data.status !== 'completed' && data.status !== 'processing') {
          throw jobError(data, info);
        }
        return { job: data, idempotencyKey: key!, replayed: response.headers.get('idempotent-replayed') === 'true', response: info };
      },
    );
  }

  /** GET the job in whatever status it is (failed and expired are answers, not exceptions). */
  async getJob(jobId: string, options: CallOptions = {}): Promise<WithResponse<JobStatus>> {
    const { job, response } = await this.getJobWithHeaders(jobId, options);
    return withResponse(job, response);
  }

  /** As getJob, plus the Retry-After header when the service sent one with a processing job, and the answer's request id and rate-limit state. */
  async getJobWithHeaders(jobId: string, options: CallOptions = {}): Promise<{ job: JobStatus; retryAfterSeconds?: number; response: ResponseInfo }> {
    const target = `${this.baseUrl}${API_PATH}`;
    const headers = ownHeaders(options.headers, 'headers');
    const call = (options as Bounded).deadline === undefined ? bounded(options, options.clock ?? this.clock, `GET ${target}`) : options;
    return withRetries(this.attempts('GET', target, call), async (signal) => {
      const { data, error, response } = await this.api
        .GET('/v1/agent-tts', { params: { query: { id: jobId } }, headers, signal })
        .catch((e: unknown) => invalidJson(e, target));
      if (error !== undefined || !response.ok) throw errorFromResponse(response, error, { jobId });
      assertJobBody(data, response);
      return { job: data, retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')), response: responseInfo(response, data) };
    });
  }

  /**
   * Polls until the job completes, waiting `retry_after_seconds` (or a longer Retry-After) between
   * polls. Resolves with the completed job; a failed or expired job throws its error.
   */
  async poll(jobId: string, options: PollOptions & Pick<CallOptions, 'headers'> = {}): Promise<WithResponse<CompletedJob>> {
    const clock = options.clock ?? this.clock;
    return pollJob((id, call) => this.getJobWithHeaders(id, { ...call, clock, headers: options.headers }), jobId, { ...options, clock });
  }

  /**
   * Submit, then poll when the service answered 202; resolves with the completed job, whose
   * `lastResponse` is the answer it came from and `submitResponse` the POST's (request ids, rate limits).
   * `timeoutMs` (default 30 minutes) covers all of it: Retry-After waits, retries, polls and a
   * resubmission. A job that fails is thrown as it failed (its code, job id and suggested action); it is
   * resubmitted with a fresh key only when `maxResubmits` asks for it, and never into a POST bucket
   * the last answer said was empty (docs/clients.md#failure-policy).
   */
  async speak(request: SpeechRequest, options: SpeakOptions = {}): Promise<SpeakResult<CompletedJob>> {
    const clock = options.clock ?? this.clock;
    const startedAt = clock.now();
    const timeoutMs = options.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS;
    const call = bounded({ ...options, timeoutMs }, clock, `POST ${this.baseUrl}${API_PATH}`, startedAt);
    let idempotencyKey = options.idempotencyKey;
    let resubmitsLeft = options.maxResubmits ?? 0;
    for (;;) {
      let submitted: SubmitResult | undefined;
      try {
        submitted = await this.submit(request, { ...call, idempotencyKey, clock });
        const { job, response } = submitted;
        if (job.status === 'completed') {
          options.onProgress?.({ jobId: job.job_id, status: 'completed', percent: 100, elapsedMs: clock.now() - startedAt, polls: 0 });
          return withSubmitResponse(withResponse(job, response), response);
        }
        const done = await this.poll(job.job_id, { ...options, timeoutMs, clock, startedAt, firstReport: job, initialDelayMs: job.retry_after_seconds * 1000 });
        return withSubmitResponse(done, response);
      } catch (error) {
        if (!(error instanceof AgentTtsError)) throw error;
        const usedKey = submitted?.idempotencyKey ?? error.retryIdempotencyKey;
        if (error.jobFailed) {
          // The job failed: the answer, unless the caller asked for resubmissions and one can be sent in time.
          const fresh = newKey();
          const delayMs = resubmitsLeft > 0 ? resubmitDelayMs(this.policy, error.rateLimit ?? submitted?.response.rateLimit) : undefined;
          if (delayMs !== undefined && clock.now() + delayMs <= call.deadline!) {
            resubmitsLeft--;
            idempotencyKey = fresh;
            (options.onRetry ?? this.onRetry)?.({ attempt: 1, delayMs, error, idempotencyKey, method: 'POST' });
            try {
              await clock.sleep(delayMs, options.signal);
            } catch (caught) {
              if (options.signal?.aborted) throw abortError(options.signal);
              throw caught;
            }
            continue;
          }
          error.retryIdempotencyKey = fresh;
          throw error;
        }
        // Polling errors carry no key of their own: retrying this speak with `usedKey` finds the same job.
        error.retryIdempotencyKey ??= error.needsNewIdempotencyKey ? newKey() : usedKey;
        throw error;
      }
    }
  }

  /**
   * Opens the audio of a completed job as a stream. The signed URL is the capability, so no API key
   * is sent with it. When given a job whose URL has expired or is otherwise no longer valid (404
   * NOT_FOUND; 403 from servers of document versions before that decision), the job is fetched again
   * for a fresh URL once, as the service's download route advises.
   */
  async openAudio(job: JobLike | string, options: CallOptions = {}): Promise<AudioDownload> {
    const response = await this.fetchFile(job, 'audio', bounded(options, options.clock ?? this.clock, 'The audio'));
    const length = response.headers.get('content-length');
    return {
      body: response.body ?? new ReadableStream({ start: (c) => c.close() }),
      contentType: response.headers.get('content-type'),
      sizeBytes: length !== null && /^\d+$/.test(length) ? Number(length) : undefined,
    };
  }

  /** The audio of a job as it is made, from its `stream_url` (an extension; see stream.ts); an error, never a normal end, when the job fails. */
  stream(job: StreamableJob | string, options: CallOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const attempts = (target: string, call: CallOptions) => ({ ...this.attempts('GET', target, call), attemptTimeoutMs: this.downloadTimeoutMs });
    return openStream({ fetch: this.fetchImpl, attempts }, job, options);
  }

  /** Downloads the whole audio into memory. A connection that drops mid-body is retried. */
  async download(job: JobLike | string, options: CallOptions = {}): Promise<Uint8Array> {
    const url = typeof job === 'string' ? job : job.audio_url;
    const call = bounded(options, options.clock ?? this.clock, `The download of ${stripQuery(url)}`);
    return withRetries({ ...this.attempts('GET', stripQuery(url), call), attemptTimeoutMs: this.downloadTimeoutMs }, async (signal) => {
      // Inner retries off: this loop already retries the whole download, body included.
      const response = await this.fetchFile(job, 'audio', { ...call, signal }, 1);
      return new Uint8Array(await response.arrayBuffer());
    });
  }

  /**
   * Downloads a job's word timings or captions (the job must have been submitted with `timestamps:
   * "word"`): `json` resolves with the parsed WordTimingsFile, `vtt` and `srt` with the caption text.
   * Retried and refreshed as `download` is; a job without `timings` is NO_TIMINGS, before any request.
   */
  downloadCaptions(job: JobWithTimings | string, format: 'json', options?: CallOptions): Promise<WordTimingsFile>;
  downloadCaptions(job: JobWithTimings | string, format: 'vtt' | 'srt', options?: CallOptions): Promise<string>;
  async downloadCaptions(job: JobWithTimings | string, format: CaptionFormat, options: CallOptions = {}): Promise<WordTimingsFile | string> {
    if (!CAPTION_FORMATS.includes(format)) throw new TypeError(`format must be one of ${CAPTION_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
    const first = typeof job === 'string' ? job : urlOf(job, format, this.baseUrl);
    const call = bounded(options, options.clock ?? this.clock, `The download of ${stripQuery(first)}`);
    return withRetries({ ...this.attempts('GET', stripQuery(first), call), attemptTimeoutMs: this.downloadTimeoutMs }, async (signal) => {
      const response = await this.fetchFile(job, format, { ...call, signal }, 1);
      const text = await response.text();
      if (format !== 'json') return text;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw new AgentTtsError({ code: 'INVALID_RESPONSE', message: `The answer from ${stripQuery(response.url || first)} is not JSON`, cause: error });
      }
      return asTimingsFile(body, response.url || first, response.status);
    });
  }

  /** The public voice catalog at `{voicesUrl}/api/v1/voices`. */
  async listVoices(options: CallOptions = {}): Promise<VoiceCatalog> {
    const { catalog, voicesUrl } = this;
    if (!catalog || voicesUrl === undefined) throw new TypeError('listVoices needs the voicesUrl option (the origin of the voice catalog)');
    const target = `${voicesUrl}/api/v1/voices`;
    return withRetries(this.attempts('GET', target, bounded(options, options.clock ?? this.clock, `GET ${target}`)), async (signal) => {
      const { data, error, response } = await catalog.GET('/api/v1/voices', { signal }).catch((e: unknown) => invalidJson(e, target));
      if (response.status === 404) throw notThisApi(response, error, voicesUrl, 'GET /api/v1/voices', 'the agent-tts voice catalog');
      if (error !== undefined || !response.ok) throw errorFromResponse(response, error);
      if (!isObject(data) || !Array.isArray(data.voices)) {
        throw new AgentTtsError({ code: 'INVALID_RESPONSE', message: `The answer from ${target} is not a voice catalog`, status: response.status });
      }
      return data;
    });
  }

  /** GETs a file of a job by its signed URL (see signed-download.ts): the given URL, then once a fresh one. */
  private fetchFile(job: JobLike | JobWithTimings | string, file: SignedFile, options: CallOptions, maxAttempts?: number): Promise<Response> {
    const deps: SignedFetchDeps = {
      fetch: this.fetchImpl,
      baseUrl: this.baseUrl,
      getJob: (id, call) => this.getJob(id, call),
      attempts: (target, call, max) => ({
        ...this.attempts('GET', target, call),
        attemptTimeoutMs: this.downloadTimeoutMs,
        policy: max ? { ...this.policy, maxAttempts: max } : this.policy,
      }),
    };
    return fetchSigned(deps, typeof job === 'string' ? job : { job_id: job.job_id, url: urlOf(job, file, this.baseUrl) }, file, options, maxAttempts);
  }

  /** The retry options every call shares: the client's policy, timeout, onRetry and clock, the call's own where it gives them. */
  private attempts(method: 'GET' | 'POST', target: string, options: Bounded) {
    return {
      deadline: options.deadline,
      timedOut: options.timedOut,
      policy: this.policy,
      method,
      target,
      signal: options.signal,
      attemptTimeoutMs: this.timeoutMs,
      onRetry: options.onRetry ?? this.onRetry,
      clock: options.clock ?? this.clock,
    };
  }
}

function isBrowser(): boolean {
  return typeof (globalThis as { document?: unknown }).document !== 'undefined';
}
