import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReports, runLoadCommand } from './helpers/load.js';
import { deleteKeys, redisOrSkip, startWorker, testRedisUrl, uniquePrefix, type RunningWorker } from './helpers/redis.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';

/**
 * agent-tts-load against the distributed mode: two API instances without local workers and one
 * synthesis worker process over one Redis. The fixtures' base URL is the first instance; the jobs
 * it accepts run in the worker, and their state is in Redis.
 */
const redis = await redisOrSkip('agent-tts-load, distributed');

describe.skipIf(!redis)('agent-tts-load against two API instances and a worker over Redis', () => {
  const prefix = uniquePrefix('load');
  let dataDir: string;
  let a: RunningServer;
  let b: RunningServer;
  let worker: RunningWorker;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-load-dist-'));
    const shared = {
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      LOCAL_WORKERS: 'false',
      RATE_POST_LIMIT: '1000',
      RATE_GET_LIMIT: '1000',
      INLINE_WAIT_MS: '1000',
    };
    a = await startServer({ backend: 'redis', dataDir, env: shared });
    b = await startServer({ backend: 'redis', dataDir, seed: false, env: shared });
    worker = await startWorker({ ...shared, JOB_CONCURRENCY: '4' });
    await worker.waitForLog('agent-tts worker ready');
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), worker?.stop()]);
    if (dataDir) await removeDir(dataDir);
    if (redis) {
      await deleteKeys(redis, prefix);
      redis.destroy();
    }
  });

  it('runs the workload to downloaded audio, the long texts as 202 jobs, every job run by the worker process', async () => {
    const out = join(dataDir, 'load');
    const { code, stdout, stderr } = await runLoadCommand([
      '--fixtures',
      a.fixturesPath,
      '--rate',
      '2',
      '--duration',
      '8s',
      '--post-limit',
      '1000',
      '--mix',
      'short=75,long=25',
      '--length',
      'long=50000',
      '--stream',
      '--threshold',
      'error_rate<0.01',
      '--out-dir',
      out,
    ]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const { results, md, html } = await readReports(out);
    const f = results.figures;
    expect(results.target.base_url).toBe(a.baseUrl);
    expect(f.submissions).toMatchObject({ sent: 16, completed: 16, errors: 0, rate_limited: 0 });
    // Draws 3, 4 and 9 of seed 1 are the 50,000-character texts: seconds of synthesis even on the native
    // engine (10,000 characters can finish inside the 1 s inline wait there), past the inline wait.
    expect(f.paths.job).toBeGreaterThanOrEqual(3);
    expect(f.paths.inline + f.paths.job).toBe(16);
    expect(f.time_to_audio_job.count).toBe(f.paths.job);
    expect(f.time_to_audio_job.min_ms).toBeGreaterThan(1000);
    expect(f.polls_per_job.jobs).toBe(f.paths.job);
    expect(f.audio.downloads).toBe(16);
    expect(f.audio.seconds).toBeGreaterThan(0);
    // --stream: every 202 job's stream_url gave its first audio byte, whichever instance answered it.
    expect(results.parameters.stream).toBe(true);
    expect(f.stream).toEqual({ jobs: f.paths.job, with_url: f.paths.job, not_offered: 0, first_byte: f.paths.job, failed: 0, failures: {} });
    expect(f.stream_first_byte.count).toBe(f.paths.job);
    expect(stdout).toContain(`time to first audio byte (stream_url): p50`);
    // The API instances ran no synthesis: the worker process did, once per submission.
    expect(a.logs()).not.toContain('"msg":"job started"');
    expect(b.logs()).not.toContain('"msg":"job started"');
    expect(worker.logs().match(/"msg":"job started"/g) ?? []).toHaveLength(16);
    expect(md).toContain('| Submissions sent / due | 16 / 16 |');
    expect(html.match(/<svg class="chart"/g)).toHaveLength(4);
  }, 180_000);
});
