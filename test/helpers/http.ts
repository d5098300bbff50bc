import { expect } from 'vitest';
import { MPEGDecoder } from 'mpg123-decoder';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface JsonResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer; the tests read it field by field and assert on what they read
  body: any;
}

/** Apps of servers in this process (test/helpers/in-process.ts), by the origin of their base URL. */
const inProcessApps = new Map<string, { request(url: string, init?: RequestInit): Response | Promise<Response> }>();

/**
 * Requests to `baseUrl` go to `app.request()` instead of the network, until the returned function
 * is called: the HTTP behaviour tests use the same helpers against a server in this process.
 */
export function registerInProcess(baseUrl: string, app: { request(url: string, init?: RequestInit): Response | Promise<Response> }): () => void {
  const { origin } = new URL(baseUrl);
  inProcessApps.set(origin, app);
  return () => {
    if (inProcessApps.get(origin) === app) inProcessApps.delete(origin);
  };
}

/** `fetch`, or `app.request()` when the URL is a registered in-process server's. */
export function fetchOf(url: string, init: RequestInit = {}): Promise<Response> {
  const app = inProcessApps.get(new URL(url).origin);
  return app ? Promise.resolve(app.request(url, init)) : fetch(url, init);
}

export async function call(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const res = await fetchOf(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

export function postJob(baseUrl: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return call(`${baseUrl}/v1/agent-tts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function getJob(baseUrl: string, key: string | undefined, id: string, headers: Record<string, string> = {}) {
  return call(`${baseUrl}/v1/agent-tts?id=${encodeURIComponent(id)}`, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
}

/** Polls until the job leaves `processing`, honouring retry_after_seconds (capped to keep tests quick). */
export async function pollUntilDone(baseUrl: string, key: string, id: string, maxMs = 120_000): Promise<JsonResponse> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const res = await getJob(baseUrl, key, id);
    if (Date.now() > deadline) throw new Error(`job ${id} still unfinished after ${maxMs} ms: ${JSON.stringify(res.body)}`);
    // Polling is limited too (30 GETs a minute by default): a 429 says how long to wait.
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after')) * 1000));
      continue;
    }
    if (res.status !== 200 || res.body.status !== 'processing') return res;
    await new Promise((r) => setTimeout(r, Math.max(1000, Math.min(3000, res.body.retry_after_seconds * 1000))));
  }
}

/**
 * The completed job behind a POST answer: the answer itself when it is 200, else (202, the machine
 * was too busy for the inline wait) the end of polling. For tests where inline or not is not the point.
 */
export async function completedJob(baseUrl: string, key: string, res: JsonResponse): Promise<JsonResponse> {
  expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
  return res.status === 200 ? res : pollUntilDone(baseUrl, key, res.body.job_id);
}

/** The API's error body (§7), with meta. */
export function expectError(res: JsonResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expectMeta(res);
}

export function expectMeta(res: JsonResponse): void {
  expect(res.body.meta.api_version).toBe('2026-04');
  expect(res.body.meta.request_id).toMatch(UUID);
  expect(res.headers.get('x-request-id')).toBe(res.body.meta.request_id);
}

export async function decodeMp3(bytes: Uint8Array): Promise<{ seconds: number; samples: Float32Array; sampleRate: number }> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  const { channelData, samplesDecoded, sampleRate } = decoder.decode(bytes);
  decoder.free();
  const samples = channelData[0];
  if (samples === undefined) throw new Error('the MP3 decoded to no channel');
  return { seconds: samplesDecoded / sampleRate, samples, sampleRate };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A text long enough that it cannot finish inside a short inline wait. */
export function longText(sentences: number): string {
  const parts: string[] = [];
  for (let i = 1; i <= sentences; i++) parts.push(`This is sentence number ${i} of a long text that keeps the engine busy for a while.`);
  return parts.join(' ');
}
