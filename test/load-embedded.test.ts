import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser, openPage } from './helpers/browser.js';
import { postJob, sleep } from './helpers/http.js';
import { readReports, runLoadCommand, startLoad } from './helpers/load.js';
import { removeDir } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { withoutFields, withoutTimings } from './helpers/captions.js';

/**
 * agent-tts-load, built, against the reference server on the embedded default. The servers allow many
 * POSTs per key (RATE_POST_LIMIT) so 2 submissions a second fit on the 8 seeded keys. The first keeps
 * the default 10 s inline wait, so short texts come back inline; the second has no inline wait
 * (INLINE_WAIT_MS=0), so every submission takes the job path: 202, polls, then the audio. Which path a
 * text takes does not depend on how busy the machine is.
 */
describe('agent-tts-load against the embedded reference server', () => {
  let server: ListeningServer;
  let jobsOnly: ListeningServer;
  let fixtures: string;
  let allKeys: string[];
  const out = (name: string) => join(server.dataDir, name);

  beforeAll(async () => {
    const limits = { RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000' };
    [server, jobsOnly] = await Promise.all([listen(limits), listen({ ...limits, INLINE_WAIT_MS: '0' })]);
    fixtures = server.fixturesPath;
    // The first synthesis starts the engine in its thread: done here, not inside the measured run.
    const warm = await postJob(server.baseUrl, server.fixtures.keys.active[7], { text: 'Warming up.' });
    expect([200, 202]).toContain(warm.status);
    const k = server.fixtures.keys;
    allKeys = [...k.active, k.revoked!, k.inactive_subscription!, k.no_api_access!, k.usage_exhausted!];
  });

  afterAll(async () => {
    await Promise.all([server?.close(), jobsOnly?.close()]);
    for (const s of [server, jobsOnly]) if (s) await removeDir(s.dataDir);
  });

  const expectNoFullKey = (text: string) => {
    for (const key of allKeys) expect(text).not.toContain(key);
    expect(text).not.toMatch(/tts_[0-9a-f]{8}_[0-9a-f]{48}/);
  };

  describe('the done-when run: --rate 2 --duration 20s --out', () => {
    let code: number;
    let stdout: string;
    let stderr: string;
    let reports: Awaited<ReturnType<typeof readReports>>;

    beforeAll(async () => {
      ({ code, stdout, stderr } = await runLoadCommand([
        '--fixtures',
        fixtures,
        '--rate',
        '2',
        '--duration',
        '20s',
        '--out-dir',
        out('done-when'),
        '--post-limit',
        '1000',
        '--mix',
        'short=80,medium=20',
        '--threshold',
        'error_rate<0.01',
        '--threshold',
        'success_rate>=0.99',
      ]));
      reports = await readReports(out('done-when'));
    }, 240_000);

    it('exits 0 with every threshold holding, and says so', () => {
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('pass  error_rate<0.01');
      expect(stdout).toContain('pass  success_rate>=0.99');
      expect(reports.results.run).toMatchObject({ verdict: 'pass', exit_code: 0, interrupted: false, stopped_by: 'schedule' });
    });

    it('sends 40 submissions on schedule, every one to downloaded audio', () => {
      const f = reports.results.figures;
      expect(f.submissions).toMatchObject({ due: 40, sent: 40, completed: 40, errors: 0, rate_limited: 0, interrupted: 0, in_flight_at_end: 0 });
      expect(f.paths.inline + f.paths.job).toBe(40);
      // Texts of 100 and 1,000 characters fit the 10 s inline wait (on a machine this busy, most of them).
      expect(f.paths.inline).toBeGreaterThanOrEqual(1);
      expect(f.inline_share).toBeCloseTo(f.paths.inline / 40, 3);
      expect(f.time_to_audio.count).toBe(40);
      expect(f.time_to_audio_inline.count).toBe(f.paths.inline);
      expect(f.time_to_audio_job.count).toBe(f.paths.job);
      for (const s of [f.time_to_audio, f.time_to_audio_inline, f.submit_latency, f.download_time, ...(f.paths.job > 0 ? [f.time_to_audio_job] : [])]) {
        expect(s.p50_ms).toBeGreaterThan(0);
        expect(s.p95_ms).toBeGreaterThanOrEqual(s.p50_ms);
        expect(s.max_ms).toBeGreaterThanOrEqual(s.p95_ms);
      }
      expect(f.polls_per_job.jobs).toBe(f.paths.job);
      expect((f.http_status.post['200'] ?? 0) + (f.http_status.post['202'] ?? 0)).toBe(40);
      expect(f.http_status.download['200']).toBe(40);
      expect(f.audio.downloads).toBe(40);
      expect(f.audio.bytes).toBeGreaterThan(40 * 1000);
      expect(f.audio.seconds).toBeGreaterThan(40 * 3); // 100 characters speak for about 5 s, 1,000 for about a minute
      expect(f.audio.seconds_per_second).toBeGreaterThan(0);
      expect(f.rate.scheduled_per_s).toBe(2);
      expect(f.rate.achieved_per_s).toBeGreaterThan(1.5);
      expect(f.generator.lag.count).toBe(40);
      expect(f.keys).toHaveLength(8);
      expect(f.keys.reduce((n: number, k: { posts: number }) => n + k.posts, 0)).toBe(40);
      for (const k of f.keys) expect(k.posts).toBe(5);
    });

    it('describes the parameters, the machine and the target, without keys', () => {
      const r = reports.results;
      expect(r.parameters).toMatchObject({
        duration_s: 20,
        expected_submissions: 40,
        post_limit: 1000,
        rate_window_s: 60,
        thresholds: ['error_rate<0.01', 'success_rate>=0.99'],
      });
      expect(r.machine.node).toBe(process.version);
      expect(r.machine.cpus).toBeGreaterThan(0);
      expect(r.machine.os).toMatch(/\S/);
      expect(r.target).toEqual({ base_url: server.baseUrl, keys: 8 });
      // The chart interval comes from the run's length and rate: 2 submissions a second for 20 s → 5 s.
      expect(r.timeline.bucket_s).toBe(5);
      expect(r.timeline.points.length).toBeGreaterThanOrEqual(4);
      expect(r.timeline.points.reduce((n: number, p: { sent: number }) => n + p.sent, 0)).toBe(40);
      expect(Object.keys(r.histograms)).toContain('time_to_audio');
      for (const text of [...reports.texts, stdout, stderr]) expectNoFullKey(text);
    });

    it('writes a Markdown report with the figures', () => {
      expect(reports.md).toContain('| Submissions sent / due | 40 / 40 |');
      const f = reports.results.figures;
      expect(reports.md).toContain(`| Answered inline (200) / as jobs (202) | ${f.paths.inline} / ${f.paths.job}; inline share`);
      expect(reports.md).toMatch(new RegExp(`\\| Time to audio, inline \\(200\\) \\| ${f.paths.inline} \\| \\d`));
      expect(reports.md).toMatch(new RegExp(`\\| Time to audio, job \\(202 → poll\\) \\| ${f.paths.job} \\| (\\d|–)`));
      expect(reports.md).toContain(`Target ${server.baseUrl}, 8 keys.`);
    });

    describe.skipIf(!browserAvailable('agent-tts-load report.html'))('report.html in headless Chromium', () => {
      it('renders its four charts with data, offline, without a request leaving the page', async () => {
        const browser = await launchBrowser();
        try {
          const opened = await openPage(browser, `file://${out('done-when')}/report.html`);
          const { page } = opened;
          expect(await page.title()).toContain('agent-tts-load report');
          const charts = page.locator('svg.chart');
          expect(await charts.count()).toBe(4);
          for (const id of ['latency', 'throughput', 'statuses', 'audio']) {
            const chart = page.locator(`svg.chart[data-chart="${id}"]`);
            expect(await chart.getAttribute('role')).toBe('img');
            expect((await chart.locator('title').first().textContent())?.length).toBeGreaterThan(5);
            expect(await chart.locator('text.axis-label').count()).toBe(2);
            expect(await chart.locator('.no-data').count()).toBe(0);
            const box = await chart.boundingBox();
            expect(box!.width).toBeGreaterThan(300);
            expect(box!.height).toBeGreaterThan(150);
          }
          // Lines with data: each latency and throughput series draws a path with segments.
          const latencyPaths = await page.locator('svg[data-chart="latency"] path.series').evaluateAll((els) => els.map((e) => e.getAttribute('d') ?? ''));
          expect(latencyPaths).toHaveLength(4);
          expect(latencyPaths.filter((d) => d.includes('L')).length).toBeGreaterThanOrEqual(2);
          // A marker per interval with data (5 s intervals: 4 or 5 of them), for each of the four series.
          expect(await page.locator('svg[data-chart="latency"] .marker').count()).toBeGreaterThanOrEqual(12);
          const sentPath = await page.locator('svg[data-chart="throughput"] [data-series="sent"] path.series').getAttribute('d');
          expect((sentPath ?? '').split('L').length).toBeGreaterThanOrEqual(4);
          // Stacked bars of the POST answers per second: every one of the 40 answers is in a bar.
          const bars = await page
            .locator('svg[data-chart="statuses"] rect.bar')
            .evaluateAll((els) => els.map((e) => ({ height: Number(e.getAttribute('height')), title: e.querySelector('title')?.textContent ?? '' })));
          expect(bars.length).toBeGreaterThanOrEqual(4);
          expect(bars.every((b) => b.height > 0)).toBe(true);
          expect(bars.reduce((n, b) => n + Number(/: (\d+) at /.exec(b.title)?.[1] ?? 0), 0)).toBe(40);
          const data = JSON.parse((await page.locator('#load-data').textContent())!);
          expect(data.figures.submissions.sent).toBe(40);
          expect(opened.outside).toEqual([]);
          expect(opened.requests.every((u) => u.startsWith('file://'))).toBe(true);
          expect(opened.errors).toEqual([]);
          await opened.close();
        } finally {
          await browser.close();
        }
      });
    });
  });

  it('follows every 202 to its audio, and exits 1 when a threshold cannot hold, naming it', async () => {
    const { code, stdout, stderr } = await runLoadCommand([
      '--fixtures',
      jobsOnly.fixturesPath,
      '--rate',
      '2',
      '--duration',
      '3s',
      '--mix',
      'short=100',
      '--post-limit',
      '1000',
      '--threshold',
      'time_to_audio_p95<1ms',
      '--threshold',
      'inline_share>=0.9',
      '--threshold',
      'error_rate<0.01',
      '--out-dir',
      out('fail'),
    ]);
    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(/FAIL {2}time_to_audio_p95<1ms {2}\(time_to_audio_p95 < 1 ms; measured \d/);
    expect(stdout).toContain('FAIL  inline_share>=0.9  (inline_share >= 0.9; measured 0)');
    expect(stdout).toContain('pass  error_rate<0.01');
    const { results, md } = await readReports(out('fail'));
    expect(results.run).toMatchObject({ verdict: 'fail', exit_code: 1 });
    expect(results.thresholds.map((t: { pass: boolean }) => t.pass)).toEqual([false, false, true]);
    const f = results.figures;
    expect(f.submissions).toMatchObject({ sent: 6, completed: 6, errors: 0 });
    expect(f.paths).toEqual({ inline: 0, job: 6 });
    expect(f.http_status.post).toEqual({ '202': 6 });
    expect(f.inline_share).toBe(0);
    expect(f.time_to_audio_job.count).toBe(6);
    expect(f.time_to_audio_inline.count).toBe(0);
    // The audio comes after at least one poll, made at retry_after_seconds (≥ 1 s) after the 202.
    expect(f.time_to_audio_job.min_ms).toBeGreaterThan(1000);
    expect(f.polls_per_job.jobs).toBe(6);
    expect(f.polls_per_job.mean).toBeGreaterThanOrEqual(1);
    expect(f.http_status.poll['200']).toBeGreaterThanOrEqual(6);
    expect(f.audio.downloads).toBe(6);
    expect(md).toMatch(/\| Time to audio, job \(202 → poll\) \| 6 \| \d/);
    expect(md).toMatch(/\| Time to audio, inline \(200\) \| 0 \| – \|/);
    // No stream is opened without --stream.
    expect(results.parameters.stream).toBe(false);
    expect(f.stream).toEqual({ jobs: 0, with_url: 0, not_offered: 0, first_byte: 0, failed: 0, failures: {} });
    expect(md).not.toContain('stream_url');
    expect(stdout).not.toContain('first audio byte');
  }, 120_000);

  describe("--stream: the first audio byte of each job's stream_url", () => {
    // Every submission takes the job path (no inline wait); 5,000 characters take a few chunks to make.
    const streamRun = (args: string[]) => runLoadCommand(['--rate', '2', '--duration', '2s', '--mix', 'long=100', '--post-limit', '1000', '--stream', ...args]);

    it('times the first audio byte of every 202 job, from its POST, before its audio is complete', async () => {
      const { code, stdout, stderr } = await streamRun([
        '--fixtures',
        jobsOnly.fixturesPath,
        '--threshold',
        'stream_first_byte_p95<60s',
        '--out-dir',
        out('stream'),
      ]);
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/time to first audio byte \(stream_url\): p50 [\d.]+ m?s \/ p95 [\d.]+ m?s \/ max [\d.]+ m?s over 4 streams\n/);
      expect(stdout).toContain('pass  stream_first_byte_p95<60s');
      const { results, md, html } = await readReports(out('stream'));
      expect(results.parameters.stream).toBe(true);
      const f = results.figures;
      expect(f.submissions).toMatchObject({ sent: 4, completed: 4, errors: 0 });
      expect(f.paths).toEqual({ inline: 0, job: 4 });
      expect(f.stream).toEqual({ jobs: 4, with_url: 4, not_offered: 0, first_byte: 4, failed: 0, failures: {} });
      const first = f.stream_first_byte;
      expect(first.count).toBe(4);
      expect(first.p50_ms).toBeGreaterThan(0);
      expect(first.p95_ms).toBeGreaterThanOrEqual(first.p50_ms);
      expect(first.max_ms).toBeGreaterThanOrEqual(first.p95_ms);
      // Each first byte came while its job was being made: before the audio that a poll (≥ 1 s after the 202) led to.
      expect(first.max_ms).toBeLessThan(f.time_to_audio_job.max_ms);
      expect(first.p50_ms).toBeLessThan(f.time_to_audio_job.p50_ms);
      expect(results.metrics.stream_first_byte_p95).toBe(first.p95_ms);
      expect(md).toMatch(/\| Time to first audio byte \(stream_url\) \| p50 .* over 4 streams \|/);
      expect(md).toMatch(/\| Stream first audio byte \(POST → first byte of stream_url\) \| 4 \| \d/);
      expect(html).toContain('Time to first audio byte (stream_url)');
    }, 120_000);

    it('against a deployment without the extension, counts the jobs without stream_url and says so', async () => {
      const baseOnly = await withoutFields(jobsOnly.baseUrl, ['stream_url']);
      try {
        const { code, stdout, stderr } = await streamRun([
          '--fixtures',
          jobsOnly.fixturesPath,
          '--base-url',
          baseOnly.url,
          '--threshold',
          'stream_first_byte_p95<60s',
          '--out-dir',
          out('no-stream'),
        ]);
        // A threshold on a metric without samples fails.
        expect(code, stderr).toBe(1);
        expect(stdout).toContain('time to first audio byte (stream_url): p50 – / p95 – / max – over 0 streams; 4 of 4 jobs without stream_url');
        expect(stdout).toContain('note: 4 of 4 jobs answered 202 carried no stream_url');
        const { results } = await readReports(out('no-stream'));
        expect(results.figures.stream).toEqual({ jobs: 4, with_url: 0, not_offered: 4, first_byte: 0, failed: 0, failures: {} });
        expect(results.figures.submissions).toMatchObject({ sent: 4, completed: 4, errors: 0 });
      } finally {
        await baseOnly.close();
      }
    }, 120_000);
  });

  describe('--timings-share: a share of the submissions ask for word timings', () => {
    const timingsRun = (args: string[]) =>
      runLoadCommand([
        '--fixtures',
        fixtures,
        '--rate',
        '2',
        '--duration',
        '2s',
        '--mix',
        'short=100',
        '--post-limit',
        '1000',
        '--timings-share',
        '0.5',
        ...args,
      ]);

    it('reports that every completed answer of those that asked carried timings', async () => {
      const { code, stdout, stderr } = await timingsRun(['--threshold', 'timings_missing==0', '--out-dir', out('timings')]);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('word timings: 2 asked; 2 of 2 completed answers carried timings');
      expect(stdout).toContain('pass  timings_missing==0');
      const { results, md } = await readReports(out('timings'));
      expect(results.parameters.timings_share).toBe(0.5);
      expect(results.figures.submissions).toMatchObject({ sent: 4, completed: 4, errors: 0 });
      expect(results.figures.timings).toEqual({ asked: 2, completed: 2, with_timings: 2, missing: 0, unasked_with_timings: 0 });
      expect(md).toContain('| Word timings (timestamps: "word") | 2 asked; 2 of 2 completed answers carried timings |');
    }, 120_000);

    it('against a deployment without the extension, counts the answers that carried none and fails the threshold on them', async () => {
      const baseOnly = await withoutTimings(server.baseUrl);
      try {
        const { code, stdout, stderr } = await timingsRun(['--base-url', baseOnly.url, '--threshold', 'timings_missing==0', '--out-dir', out('no-timings')]);
        expect(code, stderr).toBe(1);
        expect(stdout).toContain('word timings: 2 asked; 0 of 2 completed answers carried timings, 2 none');
        expect(stdout).toContain('FAIL  timings_missing==0  (timings_missing == 0; measured 2)');
        expect(stdout).toContain('note: 2 of 2 completed answers to submissions that asked for word timings carried no timings');
        const { results } = await readReports(out('no-timings'));
        expect(results.figures.timings).toEqual({ asked: 2, completed: 2, with_timings: 0, missing: 2, unasked_with_timings: 0 });
        expect(results.figures.submissions).toMatchObject({ sent: 4, completed: 4, errors: 0 });
      } finally {
        await baseOnly.close();
      }
    }, 120_000);
  });

  it.each([
    ['a malformed duration', ['--rate', '1', '--duration', '10 seconds'], /--duration: "10 seconds" is not a duration/],
    ['a malformed stage', ['--stages', '30s:2,60s'], /--stages: "60s" is not <duration>:<rate>/],
    ['a malformed mix', ['--rate', '1', '--mix', 'short=80,huge=20'], /--mix: unknown class "huge"/],
    ['an unknown threshold metric', ['--rate', '1', '--threshold', 'latency_p95<1s'], /unknown metric "latency_p95"/],
    ['a malformed threshold', ['--rate', '1', '--threshold', 'error_rate~0'], /expected <metric><op><value>/],
    ['a rate the keys do not allow', ['--rate', '2'], /a rate of 2\/s is more than the 8 keys of the fixtures allow: 0\.1333\/s \(8 keys × 1 POST per 60 s\)/],
    ['a deployment that does not answer', ['--rate', '0.1', '--base-url', 'http://127.0.0.1:PORT'], /cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/],
    [
      'an --out-dir that cannot be written',
      ['--rate', '0.1', '--out-dir', 'FIXTURES/reports'],
      /--out-dir .*fixtures\.json\/reports: cannot write there \(ENOTDIR\)/,
    ],
  ])('exits 2 with one clear line for %s', async (_what, args, message) => {
    const port = String(await freePort());
    const argv = args.map((a) => a.replace('PORT', port).replace('FIXTURES', fixtures));
    const { code, stdout, stderr } = await runLoadCommand(['--fixtures', fixtures, ...argv]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expectNoFullKey(stderr);
  });

  it('exits 2 for an unreadable fixtures file and for keys the deployment refuses, naming them redacted', async () => {
    const missing = await runLoadCommand(['--fixtures', out('nope.json'), '--rate', '1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the fixtures file .*nope\.json: ENOENT/);

    const k = server.fixtures.keys;
    const bad = out('refused-keys.json');
    await writeFile(bad, JSON.stringify({ base_url: server.baseUrl, keys: { active: [k.active[0], k.revoked, k.no_api_access] } }));
    const refused = await runLoadCommand(['--fixtures', bad, '--rate', '0.01']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`the deployment refuses key ${k.revoked!.slice(0, 12)}: INVALID_KEY (HTTP 401)`);
    expect(refused.stderr).toContain(`the deployment refuses key ${k.no_api_access!.slice(0, 12)}: NO_API_ACCESS (HTTP 403)`);
    expectNoFullKey(refused.stderr);

    await writeFile(bad, JSON.stringify({ base_url: server.baseUrl, keys: { active: [`${k.active[0]}x`] } }));
    const malformed = await runLoadCommand(['--fixtures', bad, '--rate', '0.01']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('does not match the fixtures schema');
    expectNoFullKey(malformed.stderr);
  });

  it('stops on Ctrl-C (SIGINT) with a partial report and exit code 130', async () => {
    const run = startLoad([
      '--fixtures',
      fixtures,
      '--rate',
      '2',
      '--duration',
      '60s',
      '--mix',
      'short=100',
      '--post-limit',
      '1000',
      '--threshold',
      'error_rate<0.01',
      '--out-dir',
      out('interrupted'),
    ]);
    // Bounded by rounds, not by a measured time: wait until some submissions have their audio.
    for (let i = 0; i < 200 && !/audio [2-9]\d*|audio \d\d/.test(run.stderr()); i++) await sleep(100);
    run.child.kill('SIGINT');
    const code = await run.done;
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toContain('interrupted: stopping, writing the partial report');
    const { results, md, html } = await readReports(out('interrupted'));
    expect(results.run).toMatchObject({ interrupted: true, stopped_by: 'interrupt', verdict: 'interrupted', exit_code: 130 });
    expect(results.figures.submissions.sent).toBeGreaterThan(0);
    expect(results.figures.submissions.sent).toBeLessThan(120);
    expect(results.figures.submissions.completed).toBeGreaterThan(0);
    expect(results.figures.submissions.in_flight_at_end).toBe(0);
    expect(results.parameters.expected_submissions).toBe(120);
    expect(md).toContain('**interrupted (partial)**');
    expect(html).toContain('interrupted: partial figures');
  }, 60_000);
});
