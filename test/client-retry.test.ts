import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient, AgentTtsError, type ProgressEvent, type RetryEvent } from '../src/client/index.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/**
 * The retry rules of docs/api-rules.md#idempotency, over real HTTP: scripted servers answer each request in turn with a
 * given behaviour, and record what the client sent. Nothing in the client is mocked.
 */
interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
type Step = (req: IncomingMessage, res: ServerResponse) => void;

async function scripted(steps: Step[]): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() });
      steps[Math.min(requests.length - 1, steps.length - 1)]!(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const JOB = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const meta = () => ({ request_id: randomUUID(), api_version: '2026-04' });
const completed = (jobId = JOB) => ({
  success: true,
  status: 'completed',
  job_id: jobId,
  audio_url: `http://127.0.0.1:1/v1/audio/${jobId}.mp3?expires=1&sig=x`,
  audio: { duration_seconds: 1.5, format: 'mp3', voice: 'af_heart', speed: 1.2 },
  billing: { mode: 'subscription', estimated_cost_cents: 0, monthly_minutes_used: 1, monthly_minutes_limit: 30, monthly_minutes_remaining: 29 },
  meta: { ...meta(), processing_time_ms: 10 },
});
const processing = (percent?: number, retryAfter = 1) => ({
  success: true,
  status: 'processing',
  job_id: JOB,
  status_url: `/v1/agent-tts?id=${JOB}`,
  retry_after_seconds: retryAfter,
  ...(percent !== undefined ? { progress_percent: percent } : {}),
  meta: meta(),
});
const errorBody = (code: string, message: string) => ({ success: false, error: { code, message }, meta: meta() });

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
/** Accepts the request, then drops the connection without an answer: a transport failure. */
const drop: Step = (req) => req.socket.destroy();

const KEY = 'tts_0123abcd_0123456789abcdef0123456789abcdef0123456789abcdef';
const fast = { baseDelayMs: 10, maxDelayMs: 50 };

describe('client retries (§4.7) against scripted servers', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  const serve = async (steps: Step[]) => {
    const s = await scripted(steps);
    servers.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('sends a UUID Idempotency-Key, the bearer key and a User-Agent', async () => {
    const s = await serve([json(200, completed())]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY });
    const result = await client.submit({ text: 'Hello', voice: 'st_m1', speed: 1.1, language: 'fr' });
    expect(result.job.status).toBe('completed');
    const sent = s.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.idempotencyKey).toBe(sent.headers['idempotency-key']);
    expect(sent.headers['user-agent']).toMatch(/^agent-tts-client\//);
    expect(JSON.parse(sent.body)).toEqual({ text: 'Hello', voice: 'st_m1', speed: 1.1, language: 'fr' });
  });

  it('gives each logical request its own key', async () => {
    const s = await serve([json(200, completed())]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY });
    await client.submit({ text: 'one' });
    await client.submit({ text: 'two' });
    expect(s.requests[0]!.headers['idempotency-key']).not.toBe(s.requests[1]!.headers['idempotency-key']);
  });

  it('reuses the same key after a transport failure', async () => {
    const s = await serve([drop, json(200, completed())]);
    const retries: RetryEvent[] = [];
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast, onRetry: (e) => retries.push(e) });
    const result = await client.submit({ text: 'Hello' });
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.headers['idempotency-key']).toBe(s.requests[0]!.headers['idempotency-key']);
    expect(result.idempotencyKey).toBe(s.requests[0]!.headers['idempotency-key']);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error.code).toBe('NETWORK_ERROR');
  });

  it('reuses the same key after INTERNAL_ERROR (500)', async () => {
    const s = await serve([json(500, errorBody('INTERNAL_ERROR', 'Internal server error. Retry with backoff.')), json(200, completed())]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    await client.submit({ text: 'Hello' });
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.headers['idempotency-key']).toBe(s.requests[0]!.headers['idempotency-key']);
  });

  it('never retries a job that failed (502 naming details.job_id): the error carries its code, job id and a fresh key', async () => {
    const failed = {
      ...errorBody('TTS_PROVIDER_ERROR', 'The speech engine failed on this job. Retry with backoff, using a new Idempotency-Key.'),
      error: {
        code: 'TTS_PROVIDER_ERROR',
        message: 'The speech engine failed on this job. Retry with backoff, using a new Idempotency-Key.',
        details: { job_id: JOB },
      },
    };
    const s = await serve([json(502, failed), json(200, completed())]);
    const retries: RetryEvent[] = [];
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast, onRetry: (e) => retries.push(e) });
    const error = (await client.submit({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(s.requests).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(error).toMatchObject({ code: 'TTS_PROVIDER_ERROR', status: 502, jobId: JOB, jobFailed: true, suggestedAction: 'Retry with backoff.' });
    // The key to retry with is a fresh one, as the service asked.
    expect(error.retryIdempotencyKey).toBeDefined();
    expect(error.retryIdempotencyKey).not.toBe(s.requests[0]!.headers['idempotency-key']);
  });

  it('waits the Retry-After of a 429 and keeps the key', async () => {
    const s = await serve([json(429, errorBody('RATE_LIMITED', 'Too many requests.'), { 'Retry-After': '1' }), json(200, completed())]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    await client.submit({ text: 'Hello' });
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(s.requests[1]!.headers['idempotency-key']).toBe(s.requests[0]!.headers['idempotency-key']);
  });

  it('reports a Retry-After longer than it will wait instead of sleeping through it', async () => {
    const s = await serve([json(429, errorBody('RATE_LIMITED', 'Too many requests.'), { 'Retry-After': '600' })]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: { ...fast, maxRetryAfterMs: 5000 } });
    const error = await client.submit({ text: 'Hello' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTtsError);
    expect((error as AgentTtsError).code).toBe('RATE_LIMITED');
    expect((error as AgentTtsError).retryAfterSeconds).toBe(600);
    expect(s.requests).toHaveLength(1);
  });

  it('bounds the attempts, and the error says which key to retry with', async () => {
    const s = await serve([json(500, errorBody('INTERNAL_ERROR', 'Internal server error. Retry with backoff.'))]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: { ...fast, maxAttempts: 3 } });
    const error = (await client.submit({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(s.requests).toHaveLength(3);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.status).toBe(500);
    expect(error.attempts).toBe(3);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.suggestedAction).toBe('Retry with backoff.');
    expect(error.retryIdempotencyKey).toBe(s.requests[0]!.headers['idempotency-key']);
  });

  it('does not retry INVALID_REQUEST, and passes a caller-chosen key through', async () => {
    const s = await serve([json(400, errorBody('INVALID_REQUEST', 'speed: must be between 0.5 and 1.5.'))]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const error = (await client.submit({ text: 'Hello', speed: 3 }, { idempotencyKey: 'my-key-1' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.headers['idempotency-key']).toBe('my-key-1');
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.suggestedAction).toBe('Correct the request body.');
    expect(error.retryIdempotencyKey).toBe('my-key-1');
  });

  it('stops waiting as soon as the AbortSignal aborts', async () => {
    const s = await serve([json(429, errorBody('RATE_LIMITED', 'Too many requests.'), { 'Retry-After': '30' })]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const error = await client.submit({ text: 'Hello' }, { signal: controller.signal }).catch((e: unknown) => e);
    // An AgentTtsError, never a raw DOMException; the signal's reason is its cause.
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error).toMatchObject({ code: 'ABORTED', status: undefined });
    expect((error as AgentTtsError).cause).toBeInstanceOf(DOMException);
    expect(Date.now() - started).toBeLessThan(5000);
    // A signal that timed out (AbortSignal.timeout) is TIMEOUT.
    const timedOut = await client.submit({ text: 'Hello' }, { signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ name: 'AgentTtsError', code: 'TIMEOUT' });
  });

  it('ends a request still unanswered past timeoutMs with TIMEOUT, carrying the key that finds the job it may have made', async () => {
    const silent: Step = () => undefined; // accepts the request and never answers
    const s = await serve([silent]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const error = (await client.speak({ text: 'Hello' }, { timeoutMs: 100 }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error).toMatchObject({ code: 'TIMEOUT', attempts: 1 });
    expect(error.message).toMatch(/timeout of 0\.1 s/);
    expect(error.retryIdempotencyKey).toBe(s.requests[0]!.headers['idempotency-key']);
    // One request: a timed-out attempt at the deadline is not retried.
    expect(s.requests).toHaveLength(1);
  });

  it('reports an unreachable service as NETWORK_ERROR after bounded attempts', async () => {
    const s = await serve([drop]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: { ...fast, maxAttempts: 2 } });
    const error = (await client.submit({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.requestId).toBeUndefined();
    expect(s.requests).toHaveLength(2);
  });

  it('polls after retry_after_seconds, reporting percent, elapsed time and the job id', async () => {
    const s = await serve([json(202, processing(10, 1)), json(200, processing(60, 1)), json(200, completed())]);
    const events: ProgressEvent[] = [];
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const job = await client.speak({ text: 'Hello' }, { onProgress: (e) => events.push(e) });
    expect(job.status).toBe('completed');
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'GET']);
    expect(s.requests[1]!.url).toBe(`/v1/agent-tts?id=${JOB}`);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(s.requests[2]!.at - s.requests[1]!.at).toBeGreaterThanOrEqual(1000);
    expect(events.map((e) => [e.status, e.percent])).toEqual([
      ['processing', 10],
      ['processing', 60],
      ['completed', 100],
    ]);
    expect(events.every((e) => e.jobId === JOB)).toBe(true);
    expect(events.at(-1)!.elapsedMs).toBeGreaterThanOrEqual(2000);
  });

  it('honours a Retry-After header on a poll that is longer than the body estimate', async () => {
    const s = await serve([json(202, processing(undefined, 1)), json(200, processing(undefined, 1), { 'Retry-After': '2' }), json(200, completed())]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    await client.speak({ text: 'Hello' });
    expect(s.requests[2]!.at - s.requests[1]!.at).toBeGreaterThanOrEqual(2000);
  });

  it('returns a polled job that failed as it failed: no resubmission unless asked (maxResubmits)', async () => {
    const failedJob = {
      success: false,
      status: 'failed',
      job_id: JOB,
      error: { code: 'TTS_PROVIDER_ERROR', message: 'The speech engine failed. Retry with backoff, using a new Idempotency-Key.' },
      meta: meta(),
    };
    const s = await serve([json(202, processing()), json(200, failedJob)]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const error = (await client.speak({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toMatchObject({ code: 'TTS_PROVIDER_ERROR', jobId: JOB, jobFailed: true });
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
  });

  it('with maxResubmits, resubmits with a fresh key when a polled job failed', async () => {
    const failedJob = {
      success: false,
      status: 'failed',
      job_id: JOB,
      error: { code: 'TTS_PROVIDER_ERROR', message: 'The speech engine failed. Retry with backoff, using a new Idempotency-Key.' },
      meta: meta(),
    };
    const s = await serve([json(202, processing()), json(200, failedJob), json(200, completed('aaaaaaaa-5a6b-4c7d-8e9f-0a1b2c3d4e5f'))]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const job = await client.speak({ text: 'Hello' }, { maxResubmits: 1 });
    expect(job.job_id).toBe('aaaaaaaa-5a6b-4c7d-8e9f-0a1b2c3d4e5f');
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'POST']);
    expect(s.requests[2]!.headers['idempotency-key']).not.toBe(s.requests[0]!.headers['idempotency-key']);
  });

  it('gives up polling after timeoutMs with TIMEOUT and the job id', async () => {
    const s = await serve([json(202, processing(5, 1)), json(200, processing(5, 1))]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const error = (await client.speak({ text: 'Hello' }, { timeoutMs: 1500 }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('TIMEOUT');
    expect(error.jobId).toBe(JOB);
  });

  it('waits out the whole timeoutMs however long retry_after_seconds is, then reports the last request id', async () => {
    const sent: Array<{ meta: { request_id: string } }> = [];
    const answer =
      (status: number): Step =>
      (req, res) => {
        const body = processing(5, 5);
        sent.push(body);
        json(status, body)(req, res);
      };
    const s = await serve([answer(202), answer(200)]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const started = Date.now();
    const error = (await client.speak({ text: 'Hello' }, { timeoutMs: 1500 }).catch((e: unknown) => e)) as AgentTtsError;
    const elapsed = Date.now() - started;
    expect(error.code).toBe('TIMEOUT');
    expect(error.jobId).toBe(JOB);
    expect(elapsed).toBeGreaterThanOrEqual(1490);
    expect(elapsed).toBeLessThan(4000);
    expect(error.message).toMatch(/ was still processing after 1\.[5-9] s \(timeout 1\.5 s\)$/);
    // Instead of the 5 s the job asked for, one last look at the deadline.
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(1400);
    expect(error.requestId).toBe(sent.at(-1)!.meta.request_id);
  });

  it('reports an answer that is not this API as INVALID_RESPONSE without retrying', async () => {
    const s = await serve([
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end('<html>welcome</html>');
      },
    ]);
    const client = new AgentTtsClient({ baseUrl: s.url, apiKey: KEY, retry: fast });
    const error = (await client.submit({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(s.requests).toHaveLength(1);
  });
});

/**
 * A proxy in front of the reference server that forwards the first POST, lets the server create the
 * job, and then drops the client's connection before the answer: the client cannot know the job
 * exists. Its retry with the same key must get that same job back, not a second one.
 */
describe('transport failure in front of the reference server', () => {
  let server: ListeningServer;
  let proxy: Server;
  let proxyUrl: string;
  const seen: Array<{ key: string | undefined; status?: number; jobId?: string; replayed?: string }> = [];

  beforeAll(async () => {
    server = await listen({}, { synth: 'instant' });
    let posts = 0;
    proxy = createServer((req, res) => {
      const isPost = req.method === 'POST';
      const dropThis = isPost && posts++ === 0;
      const upstream = httpRequest(
        `${server.baseUrl}${req.url}`,
        { method: req.method, headers: { ...req.headers, host: new URL(server.baseUrl).host } },
        (up) => {
          let body = '';
          up.on('data', (c) => (body += c));
          up.on('end', () => {
            if (isPost) {
              const parsed = JSON.parse(body) as { job_id?: string };
              seen.push({
                key: req.headers['idempotency-key'] as string,
                status: up.statusCode,
                jobId: parsed.job_id,
                replayed: up.headers['idempotent-replayed'] as string | undefined,
              });
            }
            if (dropThis) {
              req.socket.destroy();
              return;
            }
            res.writeHead(up.statusCode!, up.headers);
            res.end(body);
          });
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await server?.close();
  });

  it('retries with the same key and gets the job the lost answer carried', async () => {
    const client = new AgentTtsClient({ baseUrl: proxyUrl, apiKey: server.fixtures.keys.active[0]!, retry: fast });
    const job = await client.speak({ text: 'The first answer to this request is lost on the way back.' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    expect(seen[0]!.jobId).toBeDefined();
    expect(seen[1]!.jobId).toBe(seen[0]!.jobId);
    expect(seen[1]!.replayed).toBe('true');
    expect(job.job_id).toBe(seen[0]!.jobId);
  });
});
