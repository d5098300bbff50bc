#!/usr/bin/env node
// Fault-and-abuse probes (.ci/run abuse): real processes on loopback, bounded loops, each figure printed
// against its bound; exits 1 when any is out of bounds. Run after `npm run build` (the commands run
// from their dist/).
//
//   1. bombs     8 refused 6 MB nested-JSON bodies ({"text":"hi","x":[[[…]]]}, 3 million deep), 4 at a
//                time, from a key at its POST limit, to agent-tts-server (embedded mode): the server's peak
//                RSS growth < 150 MB, each answered < 200 ms, /healthz < 100 ms throughout.
//   2. captions  30 concurrent downloads of the WebVTT of a 500,000-character job: peak RSS growth
//                < 100 MB, p99 < 1 s. The job is made by agent-tts-sandbox (its instant synthesizer
//                makes the audio; the word timings, the captions rendered when the job completes, the
//                local audio storage and the caption route are the server's own).
//   3. rebinding GET /sandbox with a forged Host (a DNS-rebinding page's) is refused and holds no key.
//   4. settings  a malformed REDIS_URL (redis://u:pa%ZZx@127.0.0.1:6379/0): agent-tts-server and
//                agent-tts-worker exit 2 naming REDIS_URL, without echoing the value.
//
//   node scripts/abuse.mjs [bombs] [captions] [rebinding] [settings]    (default: all)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = {
  server: join(ROOT, 'src/server/bin/agent-tts-server.js'),
  worker: join(ROOT, 'src/server/bin/agent-tts-worker.js'),
  admin: join(ROOT, 'src/server/bin/agent-tts-admin.js'),
  sandbox: join(ROOT, 'src/sandbox/bin/agent-tts-sandbox.js'),
};
const MB = 1024 * 1024;
const results = [];
const cleanups = [];

/** One figure against its bound, printed at once. */
function figure(probe, what, value, bound, ok, unit = '') {
  results.push({ probe, what, ok });
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${probe.padEnd(9)} ${what}: ${value}${unit} (bound ${bound}${unit})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The resident set of a process, in bytes (Linux /proc). */
function rss(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Samples a process's RSS every 10 ms until stopped; returns the peak seen. */
function watchRss(pid) {
  let peak = rss(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rss(pid));
    } catch {
      /* the process is gone: the probe reports it */
    }
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/** One HTTP request on loopback: status, headers, body (a Buffer) and milliseconds until the end of the body. */
function http(port, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answered = false;
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      answered = true;
      const headersMs = performance.now() - started;
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts), ms: performance.now() - started, headersMs }));
      res.on('error', reject);
    });
    // A server that answers before reading the whole body may close while it is still being sent.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    if (body) req.end(body);
    else req.end();
  });
}

/** Starts a command of the packages; resolves once `ready` (polled) answers, with its pid. */
async function start(bin, args, env, ready) {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${bin} exited ${child.exitCode}: ${output.slice(-2000)}`);
    if (await ready().catch(() => false)) return { child, output: () => output };
    await sleep(100);
  }
  throw new Error(`${bin} did not become ready in 60 s: ${output.slice(-2000)}`);
}

async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** Runs a command to its end (at most `ms`): exit code and output. */
function run(bin, args, env, ms = 30_000) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

function tempDir(name) {
  const dir = mkdtempSync(join(tmpdir(), `agent-tts-abuse-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Probe 1: nested-JSON bombs from a key at its POST limit. */
async function bombs() {
  const dataDir = tempDir('bombs');
  const port = await freePort();
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    VOICES_PORT: String(await freePort()),
    RATE_POST_LIMIT: '1',
    // An hour's window: the key stays at its limit however long the probe takes.
    RATE_WINDOW_SECONDS: '3600',
    LOG_LEVEL: 'warn',
    SYNTH_THREADS: '1',
  };
  const account = await run(BIN.admin, ['account', 'create', '--name', 'abuse', '--plan', 'pro', '--json'], env);
  if (account.code !== 0) throw new Error(`agent-tts-admin account create: ${account.stderr}`);
  const accountId = JSON.parse(account.stdout).id ?? JSON.parse(account.stdout).account_id;
  const created = await run(BIN.admin, ['key', 'create', '--account', accountId, '--name', 'abuse', '--json'], env);
  if (created.code !== 0) throw new Error(`agent-tts-admin key create: ${created.stderr}`);
  const key = /tts_[A-Za-z0-9_]+/.exec(created.stdout)?.[0];
  const { child } = await start(BIN.server, [], env, async () => (await http(port, '/healthz')).status === 200);
  try {
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const first = await http(port, '/v1/agent-tts', { method: 'POST', headers: auth, body: JSON.stringify({ text: 'At the limit.' }) });
    if (first.status !== 200 && first.status !== 202) throw new Error(`the first POST was answered ${first.status}: ${first.body}`);
    const depth = 3_000_000;
    const bomb = Buffer.from(`{"text":"hi","x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    await sleep(500);
    const baseline = rss(child.pid);
    const watch = watchRss(child.pid);
    let probing = true;
    const health = [];
    const healthLoop = (async () => {
      while (probing) {
        health.push((await http(port, '/healthz')).ms);
        await sleep(10);
      }
    })();
    const answers = [];
    for (let round = 0; round < 2; round++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 4 }, () =>
            http(port, '/v1/agent-tts', { method: 'POST', headers: { ...auth, 'Content-Length': String(bomb.length) }, body: bomb }).catch((e) => ({
              status: `error ${e.code ?? e.message}`,
              headersMs: Number.POSITIVE_INFINITY,
            })),
          ),
        )),
      );
    }
    probing = false;
    await healthLoop;
    const peak = watch.stop();
    const statuses = answers.map((a) => a.status).join(' ');
    figure(
      'bombs',
      `8 bombs of ${(bomb.length / MB).toFixed(1)} MB answered (statuses ${statuses}); all refused`,
      answers.filter((a) => a.status === 429 || a.status === 400).length,
      '= 8',
      answers.every((a) => a.status === 429 || a.status === 400),
    );
    const slowest = Math.max(...answers.map((a) => a.headersMs));
    figure('bombs', 'slowest answer', slowest.toFixed(0), '< 200', slowest < 200, ' ms');
    const growth = (peak - baseline) / MB;
    figure('bombs', `peak RSS growth (from ${(baseline / MB).toFixed(0)} MB)`, growth.toFixed(0), '< 150', growth < 150, ' MB');
    const worstHealth = Math.max(...health);
    figure('bombs', `slowest /healthz of ${health.length}`, worstHealth.toFixed(0), '< 100', worstHealth < 100, ' ms');
  } finally {
    await stop(child);
  }
}

/** A text of `chars` characters: sentences of ordinary words, as narration is. */
function longText(chars) {
  const words = ['narration', 'of', 'a', 'long', 'chapter', 'keeps', 'every', 'listener', 'with', 'the', 'story', 'until', 'its', 'end'];
  let text = '';
  for (let i = 0; text.length < chars; i++) {
    const sentence = Array.from({ length: 9 + (i % 5) }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
    text += `${sentence[0].toUpperCase()}${sentence.slice(1)}. `;
  }
  return `${text
    .slice(0, chars - 1)
    .trimEnd()
    .padEnd(chars - 1, 'x')}.`;
}

/** Probes 2 and 3: the captions of a 500,000-character job, and the rebinding read, on one sandbox. */
async function sandboxProbes(which) {
  const port = await freePort();
  const { child } = await start(
    BIN.sandbox,
    ['--port', String(port), '--voices-port', String(await freePort()), '--rate-post-limit', '100', '--rate-get-limit', '1000'],
    {},
    async () => (await http(port, '/sandbox')).status === 200,
  );
  try {
    const keys = JSON.parse((await http(port, '/sandbox')).body).keys;
    if (which.has('rebinding')) {
      const forged = await http(port, '/sandbox', { headers: { Host: `rebind.example:${port}` } });
      const journal = await http(port, '/sandbox/requests', { headers: { Host: `rebind.example:${port}` } });
      const leaked = Object.values(keys).some((k) => forged.body.includes(k) || journal.body.includes(k));
      figure(
        'rebinding',
        `GET /sandbox and /sandbox/requests with Host rebind.example:${port}`,
        `${forged.status}, ${journal.status}`,
        '403, 403',
        forged.status === 403 && journal.status === 403 && !leaked,
      );
    }
    if (!which.has('captions')) return;
    const auth = { Authorization: `Bearer ${keys.active_ultimate}`, 'Content-Type': 'application/json' };
    const text = longText(500_000);
    const posted = await http(port, '/v1/agent-tts', { method: 'POST', headers: auth, body: JSON.stringify({ text, timestamps: 'word' }) });
    let job = JSON.parse(posted.body);
    if (posted.status === 202) {
      // The job completes on the sandbox clock: moved past its estimate, then polled.
      await http(port, '/sandbox/clock', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ advance_seconds: 86_400 }),
      });
      for (let i = 0; i < 600 && job.status !== 'completed'; i++) {
        await sleep(100);
        job = JSON.parse((await http(port, `/v1/agent-tts?id=${job.job_id}`, { headers: auth })).body);
        if (job.status === 'failed') throw new Error(`the captions job failed: ${JSON.stringify(job)}`);
      }
    }
    if (job.status !== 'completed' || !job.timings) throw new Error(`the captions job did not complete with timings: ${JSON.stringify(job).slice(0, 500)}`);
    const vtt = new URL(job.timings.vtt_url);
    const path = `${vtt.pathname}${vtt.search}`;
    const head = await http(port, path, { method: 'HEAD' });
    const size = Number(head.headers['content-length']);
    await sleep(1000);
    const baseline = rss(child.pid);
    const watch = watchRss(child.pid);
    const answers = await Promise.all(Array.from({ length: 30 }, () => http(port, path)));
    const peak = watch.stop();
    const whole = answers.every((a) => a.status === 200 && a.body.length === size && a.body.subarray(0, 6).toString() === 'WEBVTT');
    figure(
      'captions',
      `30 concurrent WebVTT downloads of ${(size / MB).toFixed(2)} MB (text ${text.length} characters), whole`,
      whole ? 30 : answers.filter((a) => a.status === 200).length,
      '= 30',
      whole,
    );
    const times = answers.map((a) => a.ms).sort((a, b) => a - b);
    const p99 = times[Math.ceil(0.99 * times.length) - 1];
    figure('captions', `p99 (p50 ${times[Math.floor(times.length / 2)].toFixed(0)} ms)`, p99.toFixed(0), '< 1000', p99 < 1000, ' ms');
    const growth = (peak - baseline) / MB;
    figure('captions', `peak RSS growth (from ${(baseline / MB).toFixed(0)} MB)`, growth.toFixed(0), '< 100', growth < 100, ' MB');
    await stop(child);
    await bareReference(size);
  } finally {
    await stop(child);
  }
}

/**
 * What this machine allows at that moment, for reading the p99: a bare Node HTTP server sending a buffer
 * of the same size to 30 clients at once (no bound; printed beside the figure).
 */
async function bareReference(size) {
  const port = await freePort();
  const serve = `const b = Buffer.alloc(${size}, 65); require('node:http').createServer((q, s) => { s.writeHead(200, { 'Content-Length': b.length }); s.end(b); }).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', serve], { stdio: 'ignore' });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  try {
    for (let i = 0; i < 100; i++) {
      if (
        await http(port, '/').then(
          () => true,
          () => false,
        )
      )
        break;
      await sleep(50);
    }
    const times = (await Promise.all(Array.from({ length: 30 }, () => http(port, '/')))).map((a) => a.ms).sort((a, b) => a - b);
    console.log(
      `INFO  captions  the same bytes from a bare Node HTTP server (this machine now, no bound): p50 ${times[14].toFixed(0)} ms, p99 ${times[29].toFixed(0)} ms`,
    );
  } finally {
    child.kill('SIGKILL');
  }
}

/** Probe 4: a malformed REDIS_URL stops the server and the worker with exit 2, naming it. */
async function settings() {
  const value = 'redis://u:pa%ZZx@127.0.0.1:6379/0';
  for (const [name, bin] of [
    ['agent-tts-server', BIN.server],
    ['agent-tts-worker', BIN.worker],
  ]) {
    const env = { DATA_DIR: tempDir('settings'), PORT: String(await freePort()), VOICES_PORT: String(await freePort()), REDIS_URL: value };
    const { code, stdout, stderr } = await run(bin, [], env, 20_000);
    const said = `${stdout}${stderr}`;
    const named = said.includes('REDIS_URL');
    const echoed = said.includes('pa%ZZx');
    const firstLine = said.trim().split('\n')[0]?.slice(0, 160) ?? '';
    figure(
      'settings',
      `${name} with a malformed REDIS_URL: exit ${code}, ${named ? 'names' : 'does not name'} REDIS_URL${echoed ? ', echoes the value' : ''} ("${firstLine}")`,
      code,
      '= 2',
      code === 2 && named && !echoed,
    );
  }
}

async function main() {
  const asked = process.argv.slice(2);
  const which = new Set(asked.length > 0 ? asked : ['bombs', 'captions', 'rebinding', 'settings']);
  for (const name of which) if (!['bombs', 'captions', 'rebinding', 'settings'].includes(name)) throw new Error(`unknown probe ${name}`);
  for (const [name, probe] of [
    ['bombs', bombs],
    ['sandbox', () => sandboxProbes(which)],
    ['settings', settings],
  ]) {
    if (name === 'sandbox' ? !which.has('captions') && !which.has('rebinding') : !which.has(name)) continue;
    try {
      await probe();
    } catch (error) {
      figure(name, 'the probe ran', `no: ${error instanceof Error ? error.message : error}`, 'yes', false);
    }
  }
  const failed = results.filter((r) => !r.ok);
  console.log(
    failed.length === 0 ? `abuse: all ${results.length} figures within bounds` : `abuse: ${failed.length} of ${results.length} figures out of bounds`,
  );
  return failed.length === 0 ? 0 : 1;
}

main()
  .then((code) => {
    process.exitCode = code;
  })
  .finally(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
