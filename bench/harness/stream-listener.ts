import { createHash } from 'node:crypto';
import { request } from 'node:http';

/**
 * A listener of a stream URL (docs/api-rules.md#streaming-audio): reads the chunked body as it arrives,
 * hashing and counting it without keeping it (a 500,000-character job streams some 140 MB), with when
 * each piece arrived, so that the time to the first byte, the throughput and the waits between pieces
 * can be read off. Its own connection (no keep-alive pool): twenty listeners are twenty sockets.
 */
export interface Listened {
  status: number;
  contentType: string | undefined;
  transferEncoding: string | undefined;
  /** performance.now() when the response's headers and its first body byte arrived. */
  headersAt: number;
  firstByteAt: number;
  /** performance.now() when the body ended (normally or not). */
  endAt: number;
  bytes: number;
  sha256: string;
  /** The first bytes of the body (up to `keepHeadBytes`), to decode what a player gets first. */
  head: Buffer;
  /** performance.now() of every piece of the body, in order. */
  arrivals: number[];
  /** The bytes received up to and including each piece (`arrivals`' companion). */
  ends: number[];
  /** The body ended with its terminating chunk; false when the server cut it short (a failed job). */
  complete: boolean;
}

export interface ListenOptions {
  timeoutMs: number;
  keepHeadBytes?: number;
  /** Called once, when the first body byte arrives. */
  onFirstByte?: () => void;
}

export function listenToStream(url: string, opts: ListenOptions): Promise<Listened> {
  const keep = opts.keepHeadBytes ?? 0;
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      const hash = createHash('sha256');
      const heads: Buffer[] = [];
      const arrivals: number[] = [];
      const ends: number[] = [];
      let [bytes, kept, firstByteAt] = [0, 0, Number.NaN];
      const headersAt = performance.now();
      let ended = false;
      const finish = (complete: boolean) => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          transferEncoding: res.headers['transfer-encoding'],
          headersAt,
          firstByteAt,
          endAt: performance.now(),
          bytes,
          sha256: hash.digest('hex'),
          head: Buffer.concat(heads),
          arrivals,
          ends,
          complete,
        });
      };
      res.on('data', (piece: Buffer) => {
        const now = performance.now();
        if (bytes === 0) {
          firstByteAt = now;
          opts.onFirstByte?.();
        }
        arrivals.push(now);
        bytes += piece.length;
        ends.push(bytes);
        hash.update(piece);
        if (kept < keep) {
          heads.push(piece.subarray(0, keep - kept));
          kept += Math.min(piece.length, keep - kept);
        }
      });
      // A body cut short (the server destroys the connection without the last chunk) is reported, not thrown.
      res.on('aborted', () => finish(false));
      res.on('error', () => finish(false));
      res.on('end', () => finish(res.complete));
    });
    const timer = setTimeout(() => req.destroy(new Error(`stream not ended after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

/** sha256 and length of a download (the audio_url), without keeping it. */
export async function hashDownload(url: string, timeoutMs: number): Promise<{ status: number; bytes: number; sha256: string }> {
  const got = await listenToStream(url, { timeoutMs });
  return { status: got.status, bytes: got.bytes, sha256: got.sha256 };
}
