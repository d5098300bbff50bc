/** The load tool's HTTP exchanges: one request with its whole answer read, or an audio download counted, each ended by the request timeout or the run's abort. */

/** The User-Agent of every request of the load tool. */
export const USER_AGENT = 'agent-tts-load/0.1.0';

/** A failure of one exchange without an answer, named for the counts. */
export class ExchangeFailure extends Error {
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

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: a server's JSON answer, read field by field with optional chains and typeof checks
  body: any;
  ms: number;
}

/** One HTTP exchange with the whole body read; the request timeout and the run's abort both end it. */
export async function exchange(url: string, init: RequestInit, signal: AbortSignal, timeoutMs: number): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
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
export async function download(url: string, signal: AbortSignal, timeoutMs: number): Promise<{ status: number; bytes: number; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      headers: { 'user-agent': USER_AGENT },
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
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

/**
 * Opens a stream URL and waits for its first byte of audio, then closes it: the answer's status, the
 * bytes of that first piece (0 when the body ended with none) and when it came (ms from the request).
 * The request timeout bounds the wait for the first byte.
 */
export async function firstByte(url: string, signal: AbortSignal, timeoutMs: number): Promise<{ status: number; bytes: number; ms: number }> {
  const started = performance.now();
  const stop = new AbortController();
  try {
    const res = await fetch(url, {
      headers: { 'user-agent': USER_AGENT },
      signal: AbortSignal.any([signal, stop.signal, AbortSignal.timeout(timeoutMs)]),
    });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      return { status: res.status, bytes: 0, ms: performance.now() - started };
    }
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { status: res.status, bytes: 0, ms: performance.now() - started };
      if (value.byteLength > 0) {
        const ms = performance.now() - started;
        await reader.cancel().catch(() => undefined);
        return { status: res.status, bytes: value.byteLength, ms };
      }
    }
  } catch (error) {
    throw failureOf(error, signal);
  } finally {
    stop.abort();
  }
}

/** The error an answer carries, or one named after its status when it has none. */
export function apiError(answer: Answer): { code: string; message: string } {
  const err = answer.body?.error;
  if (err && typeof err.code === 'string') return { code: err.code, message: typeof err.message === 'string' ? err.message : '' };
  return { code: `HTTP_${answer.status}`, message: answer.body === undefined ? 'answer is not JSON' : 'answer without an error body' };
}
