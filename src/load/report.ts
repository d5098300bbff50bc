import { cpus, freemem, loadavg, release, totalmem, type as osType, arch } from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactKeys } from '../contract/limits.js';
import { escapeXml } from './charts.js';
import type { Figures } from './figures.js';
import type { LatencySummary } from './histogram.js';
import { renderCharts } from './report-charts.js';
import type { LoadResults, MachineInfo } from './results.js';
import { describeResult } from './thresholds.js';

export function describeMachine(): MachineInfo {
  const list = cpus();
  return {
    node: process.version,
    os: `${osType()} ${release()}`,
    arch: arch(),
    cpus: list.length,
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    memory_total_mb: Math.round(totalmem() / 2 ** 20),
    memory_free_mb: Math.round(freemem() / 2 ** 20),
    loadavg_at_start: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

const ms = (v: number | null | undefined) =>
  v === null || v === undefined ? '–' : v >= 10_000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v < 10 ? 2 : 0)} ms`;
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null | undefined, d = 2) => (v === null || v === undefined ? '–' : Number(v.toFixed(d)).toLocaleString('en-US'));

function latencyRows(results: LoadResults): [string, LatencySummary][] {
  const f = results.figures;
  return [
    ['Time to audio, all', f.time_to_audio],
    ['Time to audio, inline (200)', f.time_to_audio_inline],
    ['Time to audio, job (202 → poll)', f.time_to_audio_job],
    ['Submission (POST) latency', f.submit_latency],
    ...Object.entries(f.submit_latency_by_status).map(([status, s]) => [`POST latency, ${status} answers`, s] as [string, LatencySummary]),
    ['Audio download', f.download_time],
    ...(f.stream.jobs > 0 ? [['Stream first audio byte (POST → first byte of stream_url)', f.stream_first_byte] as [string, LatencySummary]] : []),
    ['Generator lag (sent after due)', f.generator.lag],
  ];
}

/** Time to the first audio byte of the jobs' stream URLs (--stream), when any job was answered 202 in such a run. */
export function describeStream(f: Figures): string | undefined {
  const s = f.stream;
  if (s.jobs === 0) return undefined;
  const l = f.stream_first_byte;
  const failed = s.failed > 0 ? `, ${s.failed} failed` : '';
  const missing = s.not_offered > 0 ? `; ${s.not_offered} of ${s.jobs} jobs without stream_url` : '';
  return `p50 ${ms(l.p50_ms)} / p95 ${ms(l.p95_ms)} / max ${ms(l.max_ms)} over ${s.first_byte} streams${failed}${missing}`;
}

/** What became of the submissions that asked for word timings, when some did (--timings-share). */
export function describeTimings(t: Figures['timings']): string | undefined {
  if (t.asked === 0 && t.unasked_with_timings === 0) return undefined;
  const unasked = t.unasked_with_timings > 0 ? `; ${t.unasked_with_timings} answers carried timings not asked for` : '';
  return `${t.asked} asked; ${t.with_timings} of ${t.completed} completed answers carried timings${t.missing > 0 ? `, ${t.missing} none` : ''}${unasked}`;
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? '–' : entries.map(([k, v]) => `${k}: ${v}`).join(', ');
}

function describeWorkload(results: LoadResults): string {
  const p = results.parameters as {
    stages: { duration_s: number; target_per_s: number }[];
    start_rate_per_s: number;
    mix: { name: string; weight: number; chars: number }[];
  };
  const [only] = p.stages;
  const stages =
    only !== undefined && p.stages.length === 1 && p.start_rate_per_s === only.target_per_s
      ? `${only.target_per_s}/s for ${only.duration_s} s`
      : `stages ${p.stages.map((s) => `${s.duration_s}s:${s.target_per_s}`).join(', ')} (from ${p.start_rate_per_s}/s)`;
  const total = p.mix.reduce((sum, m) => sum + m.weight, 0);
  return `${stages}; mix ${p.mix.map((m) => `${m.name} (${m.chars.toLocaleString('en-US')} chars) ${Math.round((m.weight / total) * 100)}%`).join(', ')}`;
}

export function renderMarkdown(results: LoadResults): string {
  const f = results.figures;
  const lines: string[] = [];
  lines.push(`# agent-tts-load report`, '');
  lines.push(
    `Run ${results.run.id}, ${results.run.started_at} → ${results.run.ended_at} (${results.run.elapsed_s} s)${results.run.interrupted ? ', **interrupted (partial)**' : ''}.`,
  );
  lines.push(`Target ${results.target.base_url}, ${results.target.keys} keys. Workload: ${describeWorkload(results)}.`);
  lines.push(
    `Machine: ${results.machine.cpus} × ${results.machine.cpu_model}, ${results.machine.os}, Node ${results.machine.node}, load average ${results.machine.loadavg_at_start.join(' / ')}.`,
    '',
  );
  lines.push('## Summary', '', '| Figure | Value |', '| --- | --- |');
  const s = f.submissions;
  lines.push(`| Submissions sent / due | ${s.sent} / ${s.due}${s.sent_over_key_limit ? ` (${s.sent_over_key_limit} over the keys' limit)` : ''} |`);
  lines.push(`| Audio delivered | ${s.completed} (${pct(results.figures.success_rate)}) |`);
  lines.push(`| Answered inline (200) / as jobs (202) | ${f.paths.inline} / ${f.paths.job}; inline share ${pct(f.inline_share)} |`);
  lines.push(`| Refused (429) | ${s.rate_limited} (${pct(f.rate_limited_rate)}) |`);
  lines.push(`| Errors | ${s.errors} (error rate ${pct(f.error_rate)}) |`);
  if (s.interrupted) lines.push(`| Interrupted in flight | ${s.interrupted} |`);
  lines.push(`| Time to audio p50 / p95 / p99 | ${ms(f.time_to_audio.p50_ms)} / ${ms(f.time_to_audio.p95_ms)} / ${ms(f.time_to_audio.p99_ms)} |`);
  lines.push(
    `| Rate scheduled / achieved | ${num(f.rate.scheduled_per_s, 3)}/s / ${num(f.rate.achieved_per_s, 3)}/s (peak scheduled ${num(f.rate.peak_scheduled_per_s, 3)}/s) |`,
  );
  lines.push(
    `| Generator lag p99 / max; event-loop delay p99; client CPU | ${ms(f.generator.lag.p99_ms)} / ${ms(f.generator.lag.max_ms)}; ${ms(f.generator.event_loop_delay_p99_ms)}; ${num(f.generator.client_cpu_percent, 1)}% |`,
  );
  lines.push(
    `| Audio produced | ${num(f.audio.seconds, 1)} s, ${num(f.audio.seconds_per_second, 3)} audio s per s; ${f.audio.downloads} downloads, ${num(f.audio.bytes / 2 ** 20, 2)} MiB |`,
  );
  lines.push(`| Polls per 202 job | mean ${num(f.polls_per_job.mean)}, max ${num(f.polls_per_job.max, 0)} over ${f.polls_per_job.jobs} jobs |`);
  const timings = describeTimings(f.timings);
  if (timings) lines.push(`| Word timings (timestamps: "word") | ${timings} |`);
  const stream = describeStream(f);
  if (stream) lines.push(`| Time to first audio byte (stream_url) | ${stream} |`);
  lines.push('');
  if (results.thresholds.length > 0) {
    lines.push('## Thresholds', '');
    for (const t of results.thresholds) lines.push(`- ${describeResult(t)}`);
    lines.push('');
  }
  lines.push('## Latencies', '', '| Measure | Count | p50 | p90 | p95 | p99 | Max | Mean |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name, l] of latencyRows(results)) {
    lines.push(`| ${name} | ${l.count} | ${ms(l.p50_ms)} | ${ms(l.p90_ms)} | ${ms(l.p95_ms)} | ${ms(l.p99_ms)} | ${ms(l.max_ms)} | ${ms(l.mean_ms)} |`);
  }
  lines.push('', 'Time to audio runs from sending the POST to the last byte of the audio download.', '');
  if (stream) lines.push("The stream's first audio byte is timed from sending the POST too (--stream).", '');
  lines.push('## HTTP statuses and error codes', '', '| Requests | Counts |', '| --- | --- |');
  lines.push(
    `| POST | ${counts(f.http_status.post)} |`,
    `| Status GET (polls) | ${counts(f.http_status.poll)} |`,
    `| Audio download | ${counts(f.http_status.download)} |`,
  );
  lines.push(`| Error codes (submissions) | ${counts(f.error_codes)} |`, '');
  if (results.error_samples.length > 0) {
    lines.push('Error messages (first distinct ones):', '');
    for (const e of results.error_samples) lines.push(`- ${e.count} × ${e.message.replace(/\|/g, '\\|')}`);
    lines.push('');
  }
  lines.push(
    '## Keys',
    '',
    `Submissions spread over ${f.keys.length} keys (${(results.parameters as { post_limit: number }).post_limit} POST per ${(results.parameters as { rate_window_s: number }).rate_window_s} s each):`,
    '',
  );
  lines.push(f.keys.map((k) => `${k.display} ${k.posts}${k.refused ? ` (${k.refused} refused)` : ''}`).join(', '), '');
  if (results.notes.length > 0) {
    lines.push('## Notes', '');
    for (const n of results.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  lines.push('## Parameters', '', '```json', JSON.stringify(results.parameters, null, 2), '```', '');
  return lines.join('\n');
}

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;max-width:980px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#006b45;font-weight:600}.fail{color:#b3261e;font-weight:600}.warn{background:#fff4d6;padding:.5rem;border-left:4px solid #E69F00}
figure{margin:1rem 0}figcaption{font-weight:600;margin-bottom:.25rem}
svg.chart{width:100%;height:auto;font:12px system-ui,sans-serif;background:#fff}
svg .grid{stroke:#e6e6e6}svg .axis{stroke:#555}svg .tick{fill:#444}svg .axis-label{fill:#222;font-weight:600}svg .no-data{fill:#777;font-size:16px}
pre{background:#f7f7f7;padding:.5rem;overflow:auto}
`;

export function renderHtml(results: LoadResults): string {
  const f = results.figures;
  const charts = renderCharts(results);
  const e = escapeXml;
  const row = (k: string, v: string) => `<tr><th scope="row">${e(k)}</th><td>${e(v)}</td></tr>`;
  const s = f.submissions;
  const timings = describeTimings(f.timings);
  const stream = describeStream(f);
  const summary = [
    row('Submissions sent / due', `${s.sent} / ${s.due}`),
    row('Audio delivered', `${s.completed} (${pct(f.success_rate)})`),
    row('Inline (200) / job (202)', `${f.paths.inline} / ${f.paths.job}; inline share ${pct(f.inline_share)}`),
    row('Refused (429)', `${s.rate_limited} (${pct(f.rate_limited_rate)})`),
    row('Errors', `${s.errors} (error rate ${pct(f.error_rate)})`),
    row('Interrupted in flight', String(s.interrupted)),
    row('Time to audio p50 / p95 / p99', `${ms(f.time_to_audio.p50_ms)} / ${ms(f.time_to_audio.p95_ms)} / ${ms(f.time_to_audio.p99_ms)}`),
    row('Rate scheduled / achieved', `${num(f.rate.scheduled_per_s, 3)}/s / ${num(f.rate.achieved_per_s, 3)}/s`),
    row('Generator lag p99 / max', `${ms(f.generator.lag.p99_ms)} / ${ms(f.generator.lag.max_ms)}`),
    row('Audio produced', `${num(f.audio.seconds, 1)} s (${num(f.audio.seconds_per_second, 3)} audio s per s)`),
    row('Polls per 202 job', `mean ${num(f.polls_per_job.mean)}, max ${num(f.polls_per_job.max, 0)}`),
    timings ? row('Word timings (timestamps: "word")', timings) : '',
    stream ? row('Time to first audio byte (stream_url)', stream) : '',
  ].join('');
  const latencies = latencyRows(results)
    .map(
      ([name, l]) =>
        `<tr><th scope="row">${e(name)}</th><td class="n">${l.count}</td>${[l.p50_ms, l.p90_ms, l.p95_ms, l.p99_ms, l.max_ms, l.mean_ms].map((v) => `<td class="n">${e(ms(v))}</td>`).join('')}</tr>`,
    )
    .join('');
  const thresholds =
    results.thresholds.length === 0
      ? '<p>No thresholds were given.</p>'
      : `<ul>${results.thresholds.map((t) => `<li class="${t.pass ? 'pass' : 'fail'}">${e(describeResult(t))}</li>`).join('')}</ul>`;
  const statusRows =
    (['post', 'poll', 'download'] as const)
      .map((k) => row({ post: 'POST', poll: 'Status GET (polls)', download: 'Audio download' }[k], counts(f.http_status[k])))
      .join('') + row('Error codes (submissions)', counts(f.error_codes));
  const notes = results.notes.length ? `<div class="warn"><ul>${results.notes.map((n) => `<li>${e(n)}</li>`).join('')}</ul></div>` : '';
  // The data behind the charts, for anyone who wants to re-plot it; inert (type application/json).
  const data = JSON.stringify({ timeline: results.timeline, figures: results.figures, thresholds: results.thresholds }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>agent-tts-load report: ${e(results.target.base_url)}</title><style>${CSS}</style></head>
<body>
<h1>agent-tts-load report</h1>
<p>Run ${e(results.run.id)}, ${e(results.run.started_at)} → ${e(results.run.ended_at)} (${results.run.elapsed_s} s)${results.run.interrupted ? ', <strong>interrupted: partial figures</strong>' : ''}.<br>
Target <code>${e(results.target.base_url)}</code>, ${results.target.keys} keys. Workload: ${e(describeWorkload(results))}.<br>
Machine: ${results.machine.cpus} × ${e(results.machine.cpu_model)}, ${e(results.machine.os)}, Node ${e(results.machine.node)}.</p>
${notes}
<h2>Summary</h2><table>${summary}</table>
<h2>Thresholds</h2>${thresholds}
<h2>Charts</h2>
<figure>${charts.latency}<figcaption>Latency over time: time to audio and POST latency, p50 and p95 of each interval</figcaption></figure>
<figure>${charts.throughput}<figcaption>Throughput over time, per second (${results.timeline.bucket_s}-second intervals)</figcaption></figure>
<figure>${charts.statuses}<figcaption>Status mix of the submissions over time</figcaption></figure>
<figure>${charts.audio}<figcaption>Audio produced over time</figcaption></figure>
<h2>Latencies</h2>
<table><thead><tr><th scope="col">Measure</th><th scope="col">Count</th><th scope="col">p50</th><th scope="col">p90</th><th scope="col">p95</th><th scope="col">p99</th><th scope="col">Max</th><th scope="col">Mean</th></tr></thead><tbody>${latencies}</tbody></table>
<p>Time to audio runs from sending the POST to the last byte of the audio download.</p>
<h2>HTTP statuses and error codes</h2><table>${statusRows}</table>
${results.error_samples.length ? `<ul>${results.error_samples.map((x) => `<li>${x.count} × ${e(x.message)}</li>`).join('')}</ul>` : ''}
<h2>Keys</h2><p>${f.keys.map((k) => `${e(k.display)}: ${k.posts}${k.refused ? ` (${k.refused} refused)` : ''}`).join(', ')}</p>
<h2>Parameters</h2><pre>${e(JSON.stringify(results.parameters, null, 2))}</pre>
<script type="application/json" id="load-data">${data}</script>
</body></html>
`;
}

/** Writes results.json, report.md and report.html, every one redacted as text first. */
export async function writeReports(dir: string, results: LoadResults): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ['results.json', `${JSON.stringify(results, null, 2)}\n`],
    ['report.md', renderMarkdown(results)],
    ['report.html', renderHtml(results)],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    await writeFile(path, redactKeys(text));
    written.push(path);
  }
  return written;
}
