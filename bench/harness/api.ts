import { setTimeout as sleep } from 'node:timers/promises';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { httpRequest, type HttpResult } from './http-client.js';

/** Requests of the job API the benchmarks send (voice, speed and language left to their defaults). */
export function postTts(baseUrl: string, key: string, text: string, timeoutMs: number): Promise<HttpResult> {
  return httpRequest(`${baseUrl}${API_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'agent-tts-bench' },
    body: JSON.stringify({ text }),
    timeoutMs,
  });
}

export function getJob(baseUrl: string, key: string, jobId: string, timeoutMs = 10_000): Promise<HttpResult> {
  return httpRequest(`${baseUrl}${API_PATH}?id=${jobId}`, {
    headers: { authorization: `Bearer ${key}`, 'user-agent': 'agent-tts-bench' },
    timeoutMs,
  });
}

export function describeFailure(result: HttpResult): string {
  return `HTTP ${result.status}: ${result.text.slice(0, 300)}`;
}

/**
 * POSTs a text and returns the completed job's body: inline, or polled when it answered 202 (a cold
 * server on a busy machine may need longer than the inline wait for its first job).
 */
export async function completedJob(baseUrl: string, key: string, text: string): Promise<Record<string, unknown>> {
  const result = await postTts(baseUrl, key, text, 60_000);
  const body = result.status === 202 && result.json ? await pollUntilDone(baseUrl, key, String(result.json.job_id), 120_000) : result.json;
  if ((result.status !== 200 && result.status !== 202) || body?.status !== 'completed')
    throw new Error(`expected a completed job, got ${describeFailure(result)}`);
  return body;
}

/** Polls a job until it is no longer processing (bounded); returns its last body. */
export async function pollUntilDone(baseUrl: string, key: string, jobId: string, limitMs: number, intervalMs = 250): Promise<Record<string, unknown>> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const result = await getJob(baseUrl, key, jobId);
    if (result.status !== 200 || !result.json) throw new Error(`poll failed: ${describeFailure(result)}`);
    if (result.json.status !== 'processing') return result.json;
    if (performance.now() > deadline) throw new Error(`job ${jobId} still processing after ${limitMs} ms`);
    await sleep(intervalMs);
  }
}
