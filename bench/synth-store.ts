/**
 * The long job written into each audio-storage adapter in one run: the local directory, then an S3
 * bucket (s3rver, an S3-protocol server in a child process on loopback, so its memory is not counted
 * here). Figures: synthesis throughput into each (and the ratio S3 / local), peak memory of each run,
 * and read throughput of the stored audio through the adapter's stream (the audio route's path).
 *
 *   npx tsx bench/synth-store.ts            # SYNTH_BENCH_CHARS (default 150,000)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalAudioStorage } from '../src/server/adapters/local-audio-storage.js';
import { createS3Client, S3AudioStorage } from '../src/server/adapters/s3-audio-storage.js';
import type { AudioStorage } from '../src/server/ports.js';
import { createSynthesizer } from '../src/synth/index.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './harness/machine.js';
import { round } from './harness/stats.js';
import { proseOfLength } from './harness/texts.js';

const repoRoot = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../..' : '..', import.meta.url));
const mib = (bytes: number) => round(bytes / 2 ** 20, 1);
const load = () => round(loadavg()[0] ?? 0, 2);

/** bench/results/synth-<name>.{json,md}: the figures, the command, the machine and the notes. */
async function writeResults(name: string, title: string, figures: Record<string, unknown>, notes: string[]): Promise<void> {
  const dir = join(repoRoot, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const command = `npx tsx bench/synth-store.ts${process.env.SYNTH_BENCH_CHARS ? ` (SYNTH_BENCH_CHARS=${process.env.SYNTH_BENCH_CHARS})` : ''}`;
  const record = { benchmark: name, date: new Date().toISOString(), command, machine: describeMachine(), figures, notes };
  await writeFile(join(dir, `synth-${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  const m = record.machine;
  const rows = Object.entries(figures).map(([key, value]) => `| ${key} | ${typeof value === 'object' ? JSON.stringify(value) : String(value)} |`);
  const md = [`# ${title}`, '', `- Command: \`${command}\``, `- Date: ${record.date}`, `- Machine: ${m.cores} cores (${m.cpu_model}), ${m.memory_total_mb} MB RAM, Node ${m.node}, ${m.os}`, '', '| Figure | Value |', '| --- | --- |', ...rows, '', ...notes.map((n) => `- ${n}`), ''].join('\n');
  await writeFile(join(dir, `synth-${name}.md`), md);
  console.log(`results: bench/results/synth-${name}.md, bench/results/synth-${name}.json`);
}

const CHARS = Number(process.env.SYNTH_BENCH_CHARS ?? 150_000);
const title = `A ${CHARS.toLocaleString('en')}-character job into the local directory and into S3`;
console.log(`== ${title}`);
const loadBefore = load();

/** s3rver in a child process on a free loopback port; resolves with its endpoint. */
async function startS3rver(dir: string): Promise<{ endpoint: string; stop: () => void }> {
  const script = `
    const S3rver = require('s3rver');
    new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'bench' }] })
      .run().then((a) => console.log('PORT ' + a.port), (e) => { console.error(e.message); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

const scratch = await mkdtemp(join(tmpdir(), 'synth-store-'));
process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
const s3 = await startS3rver(join(scratch, 's3rver'));
const synth = createSynthesizer();
const text = proseOfLength(CHARS);
const request = { text, voice: 'af_heart', language: 'en-US', speed: 1 };

async function runInto(name: string, storage: AudioStorage) {
  const job = `00000000-0000-4000-8000-${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}`;
  if (global.gc) global.gc();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  const writer = await storage.createWriter(job);
  const result = await synth.synthesize(request, writer);
  await writer.commit();
  const wall = (performance.now() - started) / 1000;
  // Read back whole, as the audio route streams it.
  const readStarted = performance.now();
  let read = 0;
  for await (const part of (await storage.open(job))! as unknown as AsyncIterable<Uint8Array>) read += part.byteLength;
  const readSeconds = (performance.now() - readStarted) / 1000;
  clearInterval(sampler);
  await storage.delete(job);
  console.log(`  ${name}: ${round(wall, 1)} s, ${round(result.durationSeconds / wall, 1)} audio s per s, read ${round(read / 1048576 / readSeconds, 1)} MiB/s`);
  return {
    wall_seconds: round(wall, 1),
    audio_seconds_per_wall_second: round(result.durationSeconds / wall, 1),
    mp3_bytes: result.bytes,
    read_bytes: read,
    read_mib_per_second: round(read / 1048576 / readSeconds, 1),
    rss_mib_before: mib(base),
    peak_rss_mib: mib(peak),
  };
}

try {
  await synth.synthesizeToFile({ text: 'The pool is ready.', voice: 'af_heart', language: 'en-US', speed: 1 }, join(scratch, 'warm.mp3'));
  const local = await runInto('local directory', new LocalAudioStorage(join(scratch, 'audio')));
  const store = new S3AudioStorage({ client: createS3Client({ endpoint: s3.endpoint, forcePathStyle: true }), bucket: 'bench', prefix: 'audio' });
  await store.ping();
  const s3Figures = await runInto('S3 (s3rver)', store);
  const figures = {
    characters: text.length,
    threads: (await import('node:os')).availableParallelism(),
    local,
    s3: s3Figures,
    throughput_ratio_s3_to_local: round(s3Figures.audio_seconds_per_wall_second / local.audio_seconds_per_wall_second, 2),
    target_ratio: 0.9,
    peak_rss_mib_s3_minus_local: round(s3Figures.peak_rss_mib - local.peak_rss_mib, 1),
    load_average_before_after: `${loadBefore} / ${load()}`,
  };
  console.table(figures);
  await writeResults('store', title, figures, [
    'Same process, same warm synthesis pool: the local directory first, then S3; each run streams the MP3 into the adapter as it is encoded and commits.',
    'S3 is s3rver (npm) in a child process on loopback, storing on the same disk: it measures the adapter and the protocol (multipart parts of 5 MiB, two in flight), not a remote store\'s network.',
    'Read throughput is the adapter\'s stream of the whole object (what the audio route pipes to the client), not an HTTP download through the API.',
    'Peak RSS is this process (main thread and synthesis threads) sampled every 50 ms during each run.',
    'The load average is of the whole machine, shared with other work while the figures were taken.',
  ]);
} finally {
  await synth.close();
  s3.stop();
  await rm(scratch, { recursive: true, force: true });
}
