import { httpRequest } from '../harness/http-client.js';
import type { Side } from './poll-sides.js';

/**
 * The check that the lean poll handler answers a poll as the server does, made before anything is
 * measured against it.
 */

/** The structure of a JSON value: its keys, in order, and the types of their values. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shapeOf).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}:${shapeOf(v)}`)
      .join(',')}}`;
  return value === null ? 'null' : typeof value;
}

/** Headers a poll answers with, transport ones (Date, Connection, Keep-Alive) aside. */
function headerNames(headers: Record<string, unknown>): string {
  return Object.keys(headers)
    .filter((h) => !['date', 'connection', 'keep-alive'].includes(h))
    .sort()
    .join(', ');
}

/**
 * The lean handler must answer a poll as the server does: the same status, headers and body shape
 * (values differ: ids, signatures). A baseline that drifts from the real answer would measure something
 * else, so a difference stops the benchmark.
 */
export async function compareAnswers(
  server: Side,
  lean: Side,
): Promise<{ headers: string; body_shape: string; server_body_bytes: number; lean_body_bytes: number }> {
  const ask = (s: Side) => httpRequest(s.url, { headers: s.headers, timeoutMs: 10_000 });
  const [a, b] = await Promise.all([ask(server), ask(lean)]);
  const [sa, sb] = [shapeOf(a.json), shapeOf(b.json)];
  const [ha, hb] = [headerNames(a.headers), headerNames(b.headers)];
  if (a.status !== 200 || b.status !== 200 || sa !== sb || ha !== hb) {
    throw new Error(
      `the lean poll handler does not answer like the server: status ${b.status} vs ${a.status}; headers [${hb}] vs [${ha}]; body ${sb} vs ${sa}`,
    );
  }
  return { headers: ha, body_shape: sa, server_body_bytes: Buffer.byteLength(a.text), lean_body_bytes: Buffer.byteLength(b.text) };
}
