/** The timeline charts of report.html, drawn from the results' timeline. */
import { lineChart, stackedBarChart } from './charts.js';
import type { LoadResults } from './results.js';
import { STATUS_GROUPS } from './timeline.js';

/** Colours of the status groups: successes cool, refusals amber, errors warm. */
const STATUS_COLORS: Record<string, string> = { '200': '#009E73', '202': '#56B4E9', '429': '#E69F00', '4xx': '#CC79A7', '5xx': '#D55E00', network: '#000000' };

/** The four charts of report.html: latency, throughput, status mix and audio produced over time. */
export function renderCharts(results: LoadResults): { latency: string; throughput: string; statuses: string; audio: string } {
  const points = results.timeline.points;
  const b = results.timeline.bucket_s;
  const per = (v: number) => v / b;
  const latency = lineChart({
    id: 'latency',
    title: 'Latency over time',
    description: `Submission (POST) latency and time to audio, p50 and p95 of each ${b}-second interval, in milliseconds, by when the answer or the audio arrived.`,
    xLabel: 'Seconds since the start of the run',
    yLabel: 'Milliseconds',
    // Each its own colour, dash and marker; a log scale when POST (ms) and time to audio (s) lie far apart.
    yScale: 'auto',
    series: [
      { name: 'time to audio p95', points: points.map((p) => [p.t, p.time_to_audio_p95_ms]), color: '#D55E00', dash: '', marker: 'circle' },
      { name: 'time to audio p50', points: points.map((p) => [p.t, p.time_to_audio_p50_ms]), color: '#E69F00', dash: '6 3', marker: 'square' },
      { name: 'POST p95', points: points.map((p) => [p.t, p.submit_p95_ms]), color: '#0072B2', dash: '2 3', marker: 'triangle' },
      { name: 'POST p50', points: points.map((p) => [p.t, p.submit_p50_ms]), color: '#56B4E9', dash: '9 3 2 3', marker: 'diamond' },
    ],
  });
  const throughput = lineChart({
    id: 'throughput',
    title: 'Throughput over time',
    description: `Submissions due by the schedule, sent, and delivered (audio downloaded) per second, per ${b}-second interval.`,
    xLabel: 'Seconds since the start of the run',
    yLabel: 'Per second',
    series: [
      // "sent" wide and light underneath, "scheduled" thin, dark and dashed on top: visible where they coincide.
      { name: 'scheduled', points: points.map((p) => [p.t, per(p.due)]), color: '#000000', dash: '5 3', width: 1.5, marker: 'diamond', onTop: true },
      { name: 'sent', points: points.map((p) => [p.t, per(p.sent)]), color: '#56B4E9', dash: '', width: 4, marker: 'circle' },
      { name: 'audio delivered', points: points.map((p) => [p.t, per(p.completed)]), color: '#009E73', dash: '9 3 2 3', marker: 'triangle' },
    ],
  });
  const audio = lineChart({
    id: 'audio',
    title: 'Audio produced over time',
    description: `Seconds of audio delivered (downloaded) per second of the run, per ${b}-second interval.`,
    xLabel: 'Seconds since the start of the run',
    yLabel: 'Audio seconds per second',
    series: [{ name: 'audio seconds per second', points: points.map((p) => [p.t, per(p.audio_seconds)]) }],
  });
  const statuses = stackedBarChart({
    id: 'statuses',
    title: 'Status mix over time',
    description: `Answers to the submissions (POST) per ${b}-second interval by HTTP status: 200 inline, 202 job, 429 refused, other 4xx, 5xx, and no answer (network or timeout).`,
    xLabel: 'Seconds since the start of the run',
    yLabel: `POST answers per ${b} s`,
    xs: points.map((p) => p.t),
    width: b,
    stacks: STATUS_GROUPS.map((g) => ({ name: g === 'network' ? 'no answer' : g, color: STATUS_COLORS[g], values: points.map((p) => p.statuses[g]) })),
  });
  return { latency, throughput, statuses, audio };
}
