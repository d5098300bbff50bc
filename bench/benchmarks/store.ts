import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JobFiles, LocalBlobStorage, type AudioStorage, type Synthesizer } from '@agent-tts/server';
import { S3BlobStorage, createS3Client } from '@agent-tts/server/s3';
import { createSynthesizer, synthesizeToFile } from '@agent-tts/server/synth';
import { AgentServer, BENCH_ROOT } from '../harness/agent-server.js';
import { describeFailure, getJob } from '../harness/api.js';
import { defined } from '../harness/defined.js';
import { downloadCounting } from '../harness/http-client.js';
import { MB, RssSampler } from '../harness/proc.js';
import { figuresTable, status, type BenchContext, type BenchmarkOutput } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { proseOfLength } from '../harness/texts.js';
import { defaultSynthesisRequest } from '../harness/direct-pipeline.js';

/** The object store's throughput target against the local directory, in the same run. */
const TARGET_RATIO = 0.9;
const BUCKET = 'bench';
const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** s3rver in a child process on a free loopback port (its memory and CPU are not this process's). */
async function startS3rver(dir: string): Promise<{ endpoint: string; stop: () => void }> {
  const script = `
    const S3rver = require('s3rver');
    new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: '${BUCKET}' }] })
      .run().then((a) => console.log('PORT ' + a.port), (e) => { console.error(e.message); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: BENCH_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    defined(child.stdout, 'the piped stdout of s3rver').on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** The long job streamed into one adapter as it is encoded, then committed: wall time, throughput, peak RSS. */
async function synthesizeInto(synth: Synthesizer, storage: AudioStorage, jobId: string, text: string) {
  const sampler = new RssSampler({ self: 'self' }, 100);
  const started = performance.now();
  const writer = await storage.createWriter(jobId);
  const result = await synth.synthesize(defaultSynthesisRequest(text), writer);
  await writer.commit();
  const wallS = (performance.now() - started) / 1000;
  const peak = sampler.stop().self.peak_rss_bytes;
  return {
    wall_s: round(wallS, 1),
    audio_s: round(result.durationSeconds, 1),
    audio_s_per_s: round(result.durationSeconds / wallS, 1),
    mp3_bytes: result.bytes,
    peak_rss_mb: round(peak / MB, 1),
  };
}

/** Several runs of one side as one: summed audio over summed wall time, the highest peak. */
function combine(runs: Awaited<ReturnType<typeof synthesizeInto>>[]) {
  const wall = runs.reduce((sum, r) => sum + r.wall_s, 0);
  const audio = runs.reduce((sum, r) => sum + r.audio_s, 0);
  return {
    wall_s: round(wall / runs.length, 1),
    audio_s: defined(runs[0], 'the first run').audio_s,
    audio_s_per_s: round(audio / wall, 1),
    mp3_bytes: defined(runs[0], 'the first run').mp3_bytes,
    peak_rss_mb: Math.max(...runs.map((r) => r.peak_rss_mb)),
    runs: runs.map((r) => ({ wall_s: r.wall_s, audio_s_per_s: r.audio_s_per_s })),
  };
}

/** The audio route of a running server: one imported job with `file` as its audio, `count` downloads, `concurrency` at a time. */
async function downloadThroughApi(server: AgentServer, file: string, durationS: number, count: number, concurrency: number) {
  const admin = async (...args: string[]) => {
    const r = await server.admin([...args, '--json'], { timeoutMs: 300_000 });
    if (r.code !== 0) throw new Error(`admin ${args.slice(0, 2).join(' ')} failed: ${r.stderr.trim() || r.stdout.trim()}`);
    return JSON.parse(r.stdout) as Record<string, string>;
  };
  const account = await admin('account', 'create', '--name', 'bench', '--plan', 'pro');
  const accountId = defined(account.id, 'the id of the created account');
  const key = await admin('key', 'create', '--account', accountId);
  const fullKey = defined(key.key, 'the created key');
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const imported = await admin('job', 'import-legacy', '--account', accountId, '--expires-at', expires, '--audio', file, '--duration', String(durationS));
  const polled = await getJob(server.baseUrl, fullKey, defined(imported.job_id, 'the job_id of the imported job'));
  const url = polled.json?.audio_url;
  if (polled.status !== 200 || typeof url !== 'string') throw new Error(`no audio_url for the imported job: ${describeFailure(polled)}`);
  // One download first: the server's and the store's caches are warm for every measured one.
  const first = await downloadCounting(url, 300_000);
  if (first.status !== 200) throw new Error(`download answered ${first.status}`);
  let bytes = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const d = await downloadCounting(url, 300_000);
        if (d.status !== 200 || d.bytes !== first.bytes) throw new Error(`download answered ${d.status} with ${d.bytes} of ${first.bytes} bytes`);
        bytes += d.bytes;
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  return { file_bytes: first.bytes, downloads: count, concurrency, wall_s: round(wallS, 2), mb_per_s: round(bytes / MB / wallS, 1) };
}

type Run = Awaited<ReturnType<typeof synthesizeInto>>;

/**
 * The long job synthesized into the local directory and into S3. Full runs alternate the sides (local,
 * S3, S3, local), so that a change in the machine's load during the run falls on both alike; the ratio is
 * of the summed audio over the summed wall time.
 */
async function synthesizeIntoBoth(ctx: BenchContext, synth: Synthesizer, scratch: string, s3Endpoint: string, text: string, chars: number) {
  const order: ('local' | 's3')[] = ctx.quick ? ['local', 's3'] : ['local', 's3', 's3', 'local'];
  ctx.log(
    `store: ${chars.toLocaleString('en')} characters into the local directory and into S3 (s3rver), in the order ${order.join(', ')}, ${ctx.synthThreads} threads`,
  );
  // Warm beyond one sentence (threads, WebAssembly, encoder), so the first measured run is not the cold one.
  await synthesizeToFile(synth, defaultSynthesisRequest(proseOfLength(ctx.quick ? 1_000 : 5_000)), join(scratch, 'warm.mp3'));
  const local = new JobFiles(new LocalBlobStorage(join(scratch, 'audio')));
  const bucket = new JobFiles(new S3BlobStorage({ client: createS3Client({ endpoint: s3Endpoint, forcePathStyle: true }), bucket: BUCKET, prefix: 'synth' }));
  await bucket.ping();
  const jobId = '00000000-0000-4000-8000-000000000001';
  const runs: Record<'local' | 's3', Run[]> = { local: [], s3: [] };
  for (const side of order) {
    const run = await synthesizeInto(synth, side === 'local' ? local : bucket, jobId, text);
    runs[side].push(run);
    ctx.log(`  ${side === 'local' ? 'local directory' : 'S3'}: ${run.wall_s} s, ${run.audio_s_per_s} audio s/s`);
  }
  const intoLocal = combine(runs.local);
  const intoS3 = combine(runs.s3);
  const ratio = round(intoS3.audio_s_per_s / intoLocal.audio_s_per_s, 2);
  // Each S3 run against the local run next to it (local, S3 | S3, local).
  const roundRatios = runs.s3.map((r, i) => round(r.audio_s_per_s / defined(runs.local[i], `local run ${i + 1}`).audio_s_per_s, 2));
  return { order, local, jobId, intoLocal, intoS3, ratio, roundRatios };
}

/**
 * Downloads of the MP3 just made through the API's audio route, from a server on the local directory
 * and then from one on S3; the servers go into `servers` (stopped by the caller).
 */
async function downloadThroughBoth(
  ctx: BenchContext,
  made: { scratch: string; local: JobFiles; jobId: string; s3Endpoint: string; mp3Bytes: number; audioS: number },
  downloads: number,
  concurrency: number,
  servers: AgentServer[],
) {
  const { scratch, local, jobId, s3Endpoint } = made;
  // The MP3 just made, as a file for the admin CLI's import: the same bytes go to both servers.
  const mp3 = join(scratch, 'long.mp3');
  await pipeline(Readable.fromWeb(defined(await local.open(jobId), `the audio of job ${jobId}`) as never), createWriteStream(mp3));
  ctx.log(`  downloads through the API: ${downloads} of ${round(made.mp3Bytes / MB, 1)} MB, ${concurrency} at a time, local then S3`);
  const serverEnv = { LOG_LEVEL: 'warn' };
  const localServer = await AgentServer.start({ env: serverEnv, synthThreads: 1, label: 'store-local' });
  servers.push(localServer);
  const viaLocal = await downloadThroughApi(localServer, mp3, made.audioS, downloads, concurrency);
  const s3Server = await AgentServer.start({
    env: { ...serverEnv, ...S3RVER_CREDENTIALS, AUDIO_STORE: `s3://${BUCKET}/api`, S3_ENDPOINT: s3Endpoint, S3_FORCE_PATH_STYLE: 'true' },
    synthThreads: 1,
    label: 'store-s3',
  });
  servers.push(s3Server);
  const viaS3 = await downloadThroughApi(s3Server, mp3, made.audioS, downloads, concurrency);
  const downloadRatio = round(viaS3.mb_per_s / viaLocal.mb_per_s, 2);
  ctx.log(`  local ${viaLocal.mb_per_s} MB/s, S3 ${viaS3.mb_per_s} MB/s`);

  return { viaLocal, viaS3, downloadRatio };
}

/**
 * The object-store adapter against the local directory, in the same run: the long job synthesized into
 * each (throughput ratio, target ≥ 0.9), then downloads of that job's MP3 through the API's audio route
 * from a server on each (MB/s). S3 is s3rver on loopback, so this measures the adapter and the
 * protocol, not a remote store's network.
 */
export async function runStore(ctx: BenchContext): Promise<BenchmarkOutput> {
  const chars = ctx.quick ? 10_000 : 150_000;
  const downloads = ctx.quick ? 2 : 8;
  const concurrency = ctx.quick ? 1 : 4;
  const text = proseOfLength(chars);
  const scratch = await mkdtemp(join(tmpdir(), 'agent-tts-bench-store-'));
  Object.assign(process.env, { ...S3RVER_CREDENTIALS, ...process.env });
  const s3 = await startS3rver(join(scratch, 's3rver'));
  const synth = createSynthesizer({ threads: ctx.synthThreads });
  const servers: AgentServer[] = [];
  try {
    const { order, local, jobId, intoLocal, intoS3, ratio, roundRatios } = await synthesizeIntoBoth(ctx, synth, scratch, s3.endpoint, text, chars);
    await synth.close();
    const made = { scratch, local, jobId, s3Endpoint: s3.endpoint, mp3Bytes: intoLocal.mp3_bytes, audioS: intoLocal.audio_s };
    const { viaLocal, viaS3, downloadRatio } = await downloadThroughBoth(ctx, made, downloads, concurrency, servers);

    const figures = {
      characters: chars,
      'audio produced (s)': intoLocal.audio_s,
      'MP3 (MB)': round(intoLocal.mp3_bytes / MB, 1),
      'synthesis into the local directory: wall per run (s), audio s per s': `${intoLocal.runs.map((r) => r.wall_s).join(', ')}; ${intoLocal.audio_s_per_s}`,
      'synthesis into S3: wall per run (s), audio s per s': `${intoS3.runs.map((r) => r.wall_s).join(', ')}; ${intoS3.audio_s_per_s}`,
      'throughput S3 / local': `${ratio}${roundRatios.length > 1 ? ` (each S3 run over the local run next to it: ${roundRatios.join(', ')})` : ''}`,
      'peak RSS of this process, local / S3 (MB)': `${intoLocal.peak_rss_mb} / ${intoS3.peak_rss_mb}`,
      [`download through the API, local (MB/s; ${downloads} downloads, ${concurrency} at a time)`]: viaLocal.mb_per_s,
      'download through the API, S3 (MB/s)': viaS3.mb_per_s,
      'download S3 / local': downloadRatio,
    };
    const md = [
      `${chars.toLocaleString('en')} characters of prose through \`createSynthesizer({ threads: ${ctx.synthThreads} })\` in the benchmark process, on a warm pool, streamed into each audio-storage adapter as it is encoded and committed, in the order ${order.join(', ')} after a 5,000-character warm-up job (a full run alternates the sides so that the machine's drift falls on both). ` +
        "S3 is s3rver (npm) in a child process on loopback, on the same disk: the figures are of the adapter and the protocol (multipart parts of 5 MiB, two in flight), not of a remote store's network. " +
        `Downloads: the same MP3, imported as a job (\`agent-tts-admin job import-legacy\`) into a server on the local directory and into one with \`AUDIO_STORE=s3://…\`, then fetched whole through \`GET /v1/audio/{job_id}.mp3\` (${downloads} downloads, ${concurrency} at a time, after one warm-up download).`,
      '',
      figuresTable(figures),
    ];
    return {
      name: 'store',
      title: `Audio in an object store: ${chars.toLocaleString('en')} characters, and downloads through the API`,
      data: {
        chars,
        threads: ctx.synthThreads,
        local: intoLocal,
        s3: intoS3,
        throughput_ratio: ratio,
        download_local: viaLocal,
        download_s3: viaS3,
        download_ratio: downloadRatio,
      },
      markdown: md.join('\n'),
      targets: [
        {
          id: 'store-throughput',
          target: `Long job into S3 at ≥ ${TARGET_RATIO} of the local directory's throughput`,
          measured: `${ratio} (${intoS3.audio_s_per_s} / ${intoLocal.audio_s_per_s} audio s per s${roundRatios.length > 1 ? `; by adjacent pair ${roundRatios.join(', ')}` : ''})`,
          status: ctx.quick ? 'not evaluated' : status(ratio >= TARGET_RATIO),
        },
      ],
    };
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    await synth.close().catch(() => undefined);
    s3.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}
