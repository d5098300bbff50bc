/**
 * A key holder's 6 MB depth bombs against a real server process, measured from outside (issue 35).
 * The key makes its one POST of the window, then sends 8 bodies `{"text":"hi","x":[[[…]]]}` nested
 * 3 million levels deep, 4 at a time, each with Content-Length, written whole as most clients do:
 * each must be refused (429) in under 200 ms, the server's RSS must grow by less than 150 MB at its
 * peak, and /healthz, polled throughout, must answer in under 100 ms. Loopback only, bounded.
 *
 *   npm run build && npx tsx bench/probes/post-bombs.ts
 *
 * Prints the figures as JSON and exits 1 when a bound does not hold.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { ServerProcess } from '../harness/server-process.js';

const BOMBS = 8;
const AT_A_TIME = 4;
const LEVELS = 3_000_000;
const BOUNDS = { rssGrowthMb: 150, answerMs: 200, healthzMs: 100 };

const bomb = Buffer.concat([Buffer.from('{"text":"hi","x":'), Buffer.alloc(LEVELS, '['), Buffer.alloc(LEVELS, ']'), Buffer.from('}')]);

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return line ? Number(line[1]) / 1024 : Number.NaN;
}

function post(url: string, key: string, body: Buffer): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/agent-tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(body.length) },
      timeout: 30_000,
    });
    req.on('response', (res) => {
      const ms = performance.now() - started;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('no answer in 30 s')));
    req.end(body);
  });
}

async function healthz(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  return performance.now() - started;
}

const server = await ServerProcess.start({ name: 'post-bombs server' });
try {
  const fixtures = await server.seed();
  const key = fixtures.keys.active[0];
  if (key === undefined) throw new Error('the seeded fixtures have no active key');
  const first = await post(server.baseUrl, key, Buffer.from('{"text":"The one POST of the window."}'));
  if (first.status !== 200 && first.status !== 202) throw new Error(`the first POST was answered ${first.status}`);
  await new Promise((r) => setTimeout(r, 500));
  // The machine's own figures, for reading the bounds on a busy machine: /healthz alone, and the
  // same bombs sent with an unknown key (401, decided from the header alone).
  let healthzAloneMax = 0;
  for (let i = 0; i < 20; i++) healthzAloneMax = Math.max(healthzAloneMax, await healthz(server.baseUrl));
  const unauthorized = await Promise.all(Array.from({ length: AT_A_TIME }, () => post(server.baseUrl, 'tts_unknown_key', bomb)));
  await new Promise((r) => setTimeout(r, 500));
  const baseline = rssMb(server.pid);
  let peak = baseline;
  let healthzMax = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, rssMb(server.pid));
      healthzMax = Math.max(healthzMax, await healthz(server.baseUrl));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const answers: { status: number; ms: number }[] = [];
  for (let i = 0; i < BOMBS; i += AT_A_TIME) {
    answers.push(...(await Promise.all(Array.from({ length: AT_A_TIME }, () => post(server.baseUrl, key, bomb)))));
  }
  await new Promise((r) => setTimeout(r, 500));
  running = false;
  await sampler;
  peak = Math.max(peak, rssMb(server.pid));
  const figures = {
    bombs: answers.length,
    statuses: [...new Set(answers.map((a) => a.status))],
    answerMsMax: Math.round(Math.max(...answers.map((a) => a.ms))),
    rssBaselineMb: Math.round(baseline),
    rssPeakMb: Math.round(peak),
    rssGrowthMb: Math.round(peak - baseline),
    healthzMsMax: Math.round(healthzMax),
    healthzAloneMsMax: Math.round(healthzAloneMax),
    unauthorizedMsMax: Math.round(Math.max(...unauthorized.map((a) => a.ms))),
    loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
  };
  console.log(JSON.stringify(figures));
  const held =
    figures.statuses.length === 1 &&
    figures.statuses[0] === 429 &&
    figures.answerMsMax < BOUNDS.answerMs &&
    figures.rssGrowthMb < BOUNDS.rssGrowthMb &&
    figures.healthzMsMax < BOUNDS.healthzMs;
  if (!held) {
    console.error(`bounds not held: ${JSON.stringify(BOUNDS)}`);
    process.exitCode = 1;
  }
} finally {
  await server.stop(5_000);
}
