import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { niceTicks } from './charts.js';
import { flatMetrics } from './figures.js';
import { Recorder } from './recorder.js';
import { Schedule } from './schedule.js';
import { describeMachine, renderHtml, renderMarkdown, writeReports } from './report.js';
import type { LoadResults } from './results.js';
import { evaluateThresholds, parseThreshold } from './thresholds.js';

const FULL_KEY = `tts_0123abcd_${'e'.repeat(48)}`;

/** A small run, recorded through the same calls the runner makes. */
function recordedRun(): Recorder {
  const r = new Recorder(1000, ['tts_0123abcd', 'tts_89abcdef']);
  for (let i = 0; i < 10; i++) {
    const at = i * 500;
    r.onDue(at);
    r.onSent(at, 2, i % 2, true);
    if (i === 9) {
      r.onExchange('post', 429);
      r.onPostAnswer(at + 20, 429, 20, 1);
      r.onRateLimited();
      continue;
    }
    if (i === 8) {
      r.onExchange('post', 502);
      r.onPostAnswer(at + 30, 502, 30, 0);
      r.onError(at + 30, 'TTS_PROVIDER_ERROR', `upstream <failed> for ${FULL_KEY}`);
      continue;
    }
    const job = i % 4 === 3;
    r.onExchange('post', job ? 202 : 200);
    r.onPostAnswer(at + 100, job ? 202 : 200, 100, i % 2);
    r.onPath(job ? 'job' : 'inline');
    if (job) {
      r.onExchange('poll', 200);
      r.onExchange('poll', 200);
      r.onPollsDone(2);
    }
    r.onExchange('download', 200);
    r.onDownload(10, 4000);
    r.onCompleted(at + (job ? 2500 : 150), job ? 'job' : 'inline', job ? 2500 : 150, 3);
  }
  return r;
}

function results(r: Recorder, thresholds: string[] = []): LoadResults {
  const figures = r.figures({ elapsedMs: 8000, scheduleElapsedMs: 5000, peakScheduledRate: 2, eventLoopDelayP99Ms: 12, clientCpuPercent: 3 });
  const metrics = flatMetrics(figures);
  return {
    tool: { name: 'agent-tts-load', version: '0.1.0' },
    run: {
      id: 'abcd1234',
      started_at: '2026-11-23T09:00:00.000Z',
      ended_at: '2026-11-23T09:00:08.000Z',
      elapsed_s: 8,
      interrupted: false,
      stopped_by: 'schedule',
      verdict: 'pass',
      exit_code: 0,
    },
    parameters: {
      stages: [{ duration_s: 5, target_per_s: 2 }],
      start_rate_per_s: 2,
      mix: [{ name: 'short', weight: 1, chars: 100 }],
      post_limit: 1000,
      rate_window_s: 60,
    },
    target: { base_url: 'http://127.0.0.1:8080', keys: 2 },
    machine: describeMachine(),
    client: { http: 'fetch', user_agent: 'agent-tts-load/0.1.0' },
    figures,
    metrics,
    thresholds: evaluateThresholds(thresholds.map(parseThreshold), metrics),
    notes: [],
    error_samples: [...r.errorSamples].map(([message, count]) => ({ message, count })),
    timeline: { bucket_s: 1, points: r.timeline() },
    histograms: { time_to_audio: r.tta.encode() },
  };
}

describe('figures', () => {
  it('counts paths, endings, statuses, polls and audio', () => {
    const f = results(recordedRun()).figures;
    expect(f.submissions).toMatchObject({ due: 10, sent: 10, completed: 8, rate_limited: 1, errors: 1, interrupted: 0, in_flight_at_end: 0 });
    expect(f.paths).toEqual({ inline: 6, job: 2 });
    expect(f.inline_share).toBe(0.75);
    expect(f.error_rate).toBe(0.1);
    expect(f.rate_limited_rate).toBe(0.1);
    expect(f.success_rate).toBe(0.8);
    expect(f.time_to_audio_inline.count).toBe(6);
    expect(f.time_to_audio_job.count).toBe(2);
    expect(f.time_to_audio_job.p50_ms! / 2500).toBeCloseTo(1, 2);
    expect(f.polls_per_job).toEqual({ jobs: 2, mean: 2, max: 2, distribution: { '2': 2 } });
    expect(f.http_status.post).toEqual({ '200': 6, '202': 2, '429': 1, '502': 1 });
    expect(f.error_codes).toEqual({ TTS_PROVIDER_ERROR: 1, RATE_LIMITED: 1 });
    expect(f.audio).toMatchObject({ seconds: 24, seconds_per_second: 3, downloads: 8, bytes: 32_000 });
    expect(f.keys).toEqual([
      { display: 'tts_0123abcd', posts: 5, refused: 0 },
      { display: 'tts_89abcdef', posts: 5, refused: 1 },
    ]);
    expect(f.rate.scheduled_per_s).toBe(2);
    const m = flatMetrics(f);
    expect(m.inline_share).toBe(0.75);
    expect(m.polls_per_job_max).toBe(2);
    expect(m.time_to_audio_inline_p95! / 150).toBeCloseTo(1, 2);
  });

  it('puts every event in the bucket of its time', () => {
    const points = recordedRun().timeline();
    // Sent in the first 5 s; the last job's audio arrived in the seventh second.
    expect(points.map((p) => p.sent)).toEqual([2, 2, 2, 2, 2, 0, 0]);
    expect(points[4]!.statuses).toMatchObject({ '429': 1, '5xx': 1 });
    expect(points.reduce((n, p) => n + p.completed, 0)).toBe(8);
    expect(points[0]!.time_to_audio_p50_ms).toBe(150);
  });
});

/** Each series' path in a rendered chart, in painting order. */
function seriesPaths(svg: string): { name: string; d: string; stroke: string; dash: string; width: string }[] {
  return [
    ...svg.matchAll(
      /<g class="series-group" data-series="([^"]+)"><path class="series" d="([^"]*)" fill="none" stroke="([^"]+)" stroke-width="([^"]+)"(?: stroke-dasharray="([^"]+)")?/g,
    ),
  ].map((m) => ({
    name: m[1]!,
    d: m[2]!,
    stroke: m[3]!,
    width: m[4]!,
    dash: m[5] ?? '',
  }));
}

/** The chart of that id in a report. */
const chartOf = (html: string, id: string) => new RegExp(`<svg class="chart" data-chart="${id}".*?</svg>`, 's').exec(html)![0];

/** The y pixel of every vertex of a path. */
const ysOf = (d: string) => [...d.matchAll(/,([\d.]+)/g)].map((m) => Number(m[1]));

/** 1 request per 2 s for 60 s, each sent on time (some a fraction of a millisecond early), answered in 40 ms, audio 1.5 s later. */
function slowRun(): LoadResults {
  const r = new Recorder(1000, ['tts_0123abcd']);
  [...new Schedule([{ durationMs: 60_000, target: 0.5 }], 0.5).dueTimes()].forEach((due, i) => {
    r.onDue(due);
    const sentAt = due + (i % 3 === 0 ? -0.3 : 0.5);
    r.onSent(sentAt, sentAt - due, 0, true);
    r.onExchange('post', 200);
    r.onPostAnswer(sentAt + 40 + (i % 5), 200, 40 + (i % 5), 0);
    r.onPath('inline');
    r.onDownload(5, 1000);
    r.onCompleted(sentAt + 1500, 'inline', 1500 + i * 10, 1);
  });
  const base = results(r);
  return { ...base, timeline: r.chartTimeline(61_600, 60_000) };
}

describe('charts at a low rate', () => {
  it('plot the throughput per second in buckets wide enough to be flat, not a 0↔1 sawtooth', () => {
    const res = slowRun();
    expect(res.timeline.bucket_s).toBe(10);
    const paths = seriesPaths(chartOf(renderHtml(res), 'throughput'));
    const scheduled = paths.find((p) => p.name === 'scheduled')!;
    const sent = paths.find((p) => p.name === 'sent')!;
    // 5 per 10 s in each full bucket: 0.5 per second, the same height every time, for both.
    expect(new Set(ysOf(scheduled.d)).size).toBe(1);
    expect(ysOf(sent.d)).toEqual(ysOf(scheduled.d));
    expect(res.timeline.points.map((p) => p.sent / res.timeline.bucket_s)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    // The status mix counts per interval, and says which.
    expect(chartOf(renderHtml(res), 'statuses')).toContain('POST answers per 10 s');
    expect(chartOf(renderHtml(res), 'throughput')).toMatch(/<text class="tick"[^>]*>0\.5<\/text>/);
  });

  it('show every throughput series, "scheduled" painted over "sent" where they coincide', () => {
    const paths = seriesPaths(chartOf(renderHtml(slowRun()), 'throughput'));
    expect(paths.map((p) => p.name)).toEqual(['sent', 'audio delivered', 'scheduled']);
    for (const p of paths) expect(p.d).toMatch(/^M[\d.]+,[\d.]+L/);
    expect(new Set(paths.map((p) => p.stroke)).size).toBe(3);
    expect(new Set(paths.map((p) => p.dash)).size).toBe(3);
    const sent = paths.find((p) => p.name === 'sent')!;
    const scheduled = paths.find((p) => p.name === 'scheduled')!;
    expect(Number(scheduled.width)).toBeLessThan(Number(sent.width));
    expect(scheduled.dash).not.toBe('');
  });

  it('draw the four latency series apart, each named in the legend, on a log scale when they lie far apart', () => {
    const svg = chartOf(renderHtml(slowRun()), 'latency');
    const paths = seriesPaths(svg);
    expect(paths.map((p) => p.name).sort()).toEqual(['POST p50', 'POST p95', 'time to audio p50', 'time to audio p95']);
    for (const p of paths) expect(p.d).toMatch(/^M[\d.]+,[\d.]+L/);
    expect(new Set(paths.map((p) => p.stroke)).size).toBe(4);
    expect(new Set(paths.map((p) => p.dash)).size).toBe(4);
    const legend = [...svg.matchAll(/<g class="legend-item">.*?<text[^>]*>([^<]+)<\/text><\/g>/g)].map((m) => m[1]);
    expect(legend).toEqual(['time to audio p95', 'time to audio p50', 'POST p95', 'POST p50']);
    // POST answers in ~40 ms, audio in ~1.5–1.8 s: log scale.
    expect(svg).toContain('Milliseconds (log scale)');
  });
});

describe('reports', () => {
  it('renders Markdown with the figures and the thresholds', () => {
    const md = renderMarkdown(results(recordedRun(), ['inline_share>=0.9', 'error_rate<0.5']));
    expect(md).toContain('| Answered inline (200) / as jobs (202) | 6 / 2; inline share 75.0% |');
    expect(md).toContain('FAIL  inline_share>=0.9');
    expect(md).toContain('pass  error_rate<0.5');
    expect(md).toMatch(/\| Time to audio, job \(202 → poll\) \| 2 \| 25\d\d ms \|/);
  });

  it('says what became of the submissions that asked for word timings, only when some did', () => {
    expect(renderMarkdown(results(recordedRun()))).not.toContain('Word timings');
    const r = recordedRun();
    r.onSent(5000, 0, 0, true, true);
    r.onSent(5500, 0, 1, true, true);
    r.onSent(6000, 0, 0, true, true);
    r.onTimings(true, true);
    r.onTimings(true, false);
    const row = '| Word timings (timestamps: "word") | 3 asked; 1 of 2 completed answers carried timings, 1 none |';
    expect(renderMarkdown(results(r))).toContain(row);
    expect(renderHtml(results(r))).toContain(
      '<th scope="row">Word timings (timestamps: &quot;word&quot;)</th><td>3 asked; 1 of 2 completed answers carried timings, 1 none</td>',
    );
    expect(results(r).metrics).toMatchObject({ timings_asked: 3, timings_missing: 1 });
  });

  it('reports the time to first audio byte of the stream URLs (--stream), only when some 202 job was streamed or lacked the URL', () => {
    const plain = renderMarkdown(results(recordedRun()));
    expect(plain).not.toContain('stream_url');
    const r = recordedRun();
    for (const ms of [300, 500]) {
      r.onStreamOffered(true);
      r.onStreamFirstByte(ms);
    }
    r.onStreamOffered(true);
    r.onStreamFailed('HTTP_404');
    r.onStreamOffered(false);
    const res = results(r, ['stream_first_byte_max<1s']);
    expect(res.figures.stream).toEqual({ jobs: 4, with_url: 3, not_offered: 1, first_byte: 2, failed: 1, failures: { HTTP_404: 1 } });
    const text = 'p50 300 ms / p95 500 ms / max 500 ms over 2 streams, 1 failed; 1 of 4 jobs without stream_url';
    const md = renderMarkdown(res);
    expect(md).toContain(`| Time to first audio byte (stream_url) | ${text} |`);
    expect(md).toMatch(/\| Stream first audio byte \(POST → first byte of stream_url\) \| 2 \| 300 ms \|/);
    expect(renderHtml(res)).toContain(`<th scope="row">Time to first audio byte (stream_url)</th><td>${text}</td>`);
    expect(res.metrics.stream_first_byte_p50).toBeCloseTo(300, -1);
    expect(res.metrics.stream_first_byte_max).toBeCloseTo(500, -1);
    expect(res.thresholds[0]).toMatchObject({ pass: true });
  });

  it('renders HTML with four charts holding the data, escaped, with titles and axis labels', () => {
    const html = renderHtml(results(recordedRun()));
    const charts = [...html.matchAll(/<svg class="chart" data-chart="(\w+)" role="img" aria-labelledby="\w+-title \w+-desc"/g)].map((m) => m[1]);
    expect(charts).toEqual(['latency', 'throughput', 'statuses', 'audio']);
    expect(html).toContain('<title id="latency-title">Latency over time</title>');
    expect(html).toContain('Seconds since the start of the run');
    expect((html.match(/<rect class="bar"/g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(html).toMatch(/<path class="series" d="M[\d.]+,[\d.]+L/);
    expect(html).toContain('upstream &lt;failed&gt;');
    expect(html).not.toContain('<failed>');
    expect(html).not.toMatch(/<script(?! type="application\/json")/);
    expect(html).not.toMatch(/(src|href)="https?:/);
    const data = JSON.parse(/<script type="application\/json" id="load-data">(.*)<\/script>/s.exec(html)![1]!);
    expect(data.timeline.points).toHaveLength(7);
  });

  it('shows "no data" rather than an empty chart', () => {
    const html = renderHtml(results(new Recorder(1000, ['tts_0123abcd'])));
    expect(html.match(/class="no-data"/g)).toHaveLength(4);
  });

  it('writes the three files with every key redacted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-load-report-'));
    try {
      const files = await writeReports(dir, results(recordedRun()));
      expect(files.map((f) => f.slice(dir.length + 1))).toEqual(['results.json', 'report.md', 'report.html']);
      for (const file of files) {
        const text = await readFile(file, 'utf8');
        expect(text).not.toContain(FULL_KEY);
      }
      expect(await readFile(join(dir, 'report.md'), 'utf8')).toContain('upstream <failed> for tts_0123abcd');
      expect(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')).figures.paths).toEqual({ inline: 6, job: 2 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('picks round axis ticks', () => {
    expect(niceTicks(9.3)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(1200, 5)).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});
