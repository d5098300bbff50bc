import { Agent, request } from 'node:http';

/** Keep-alive and no socket cap: an open-loop sender must never wait for a free socket. */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 1000 });

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: Record<string, unknown> | undefined;
  ms: number;
}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, response body included. */
  timeoutMs: number;
}

/** One HTTP exchange over loopback; rejects on a network error or when the timeout passes. */
export function httpRequest(url: string, opts: RequestOptions): Promise<HttpResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const req = request(url, { method: opts.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, ms: performance.now() - started });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`timeout after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(opts.body);
  });
}

/** Streams a download and counts its bytes without keeping them; returns the first bytes for a format check. */
export function downloadCounting(url: string, timeoutMs: number): Promise<{ status: number; bytes: number; head: Buffer; contentLength?: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let bytes = 0;
      let head = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (head.length < 16) head = Buffer.concat([head, chunk.subarray(0, 16 - head.length)]);
        bytes += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const length = res.headers['content-length'];
        resolve({ status: res.statusCode ?? 0, bytes, head, contentLength: length === undefined ? undefined : Number(length) });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`download timeout after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}
