/**
 * Inline SVG charts for report.html: no script, no library, no request. Each chart is an
 * `<svg role="img">` with a title and a description, labelled axes with ticks, and a legend; series
 * differ by dash pattern as well as by colour (Okabe–Ito palette, legible to colour-blind readers).
 */

import { defined } from './defined.js';

const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#999999', '#000000'] as const;

/** Dash patterns by series index ('' is solid), so series differ even where colours are hard to tell apart. */
const DASHES = ['', '6 3', '2 3', '9 3 2 3', '1 4', '12 4'] as const;

/** The style of series `i`: the list repeats when there are more series than styles. */
function cycle<T>(list: readonly [T, ...T[]], i: number): T {
  return list[i % list.length] ?? list[0];
}

const W = 720;
const H = 300;
const M = { top: 20, right: 20, bottom: 50, left: 70 };
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** Round tick steps (1, 2, 5 × 10ⁿ) covering 0..max with about `count` ticks. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  // raw / power is in [1, 10), so one of these is at least raw.
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  const last = ticks.at(-1) ?? 0;
  if (last < max) ticks.push(Number((last + step).toPrecision(12)));
  return ticks;
}

const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : String(Number(v.toPrecision(4))));

interface Frame {
  id: string;
  title: string;
  description: string;
  xLabel: string;
  yLabel: string;
  xMax: number;
  yMax: number;
  /** Set for a logarithmic y axis: the smallest positive value. */
  yMin?: number;
}

type LegendEntry = { name: string; color: string; dash?: string; width?: number; kind: 'line' | 'box' };

/** Ticks of a logarithmic axis covering min..max: 1, 2, 5 × 10ⁿ (only powers of ten over a wide range). */
export function logTicks(min: number, max: number): number[] {
  const lo = Math.floor(Math.log10(min));
  const hi = Math.ceil(Math.log10(Math.max(max, min * 10)));
  const steps = hi - lo > 4 ? [1] : [1, 2, 5];
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) for (const m of steps) ticks.push(Number((m * 10 ** e).toPrecision(12)));
  // Keep one tick at or below min and one at or above max.
  let first = 0;
  for (const [i, tick] of ticks.entries()) if (tick <= min) first = i;
  const lastAbove = ticks.findIndex((t) => t >= max);
  return ticks.slice(first, lastAbove === -1 ? ticks.length : lastAbove + 1);
}

type Marker = 'circle' | 'square' | 'triangle' | 'diamond';
const MARKERS: readonly [Marker, ...Marker[]] = ['circle', 'square', 'triangle', 'diamond'];

export interface LineSeries {
  name: string;
  /** [x, y]; a null y breaks the line. */
  points: [number, number | null][];
  /** Dash pattern ('' solid); by default the series' own from DASHES. */
  dash?: string;
  color?: string;
  marker?: Marker;
  /** Line width (default 2). */
  width?: number;
  /** Painted after the others, so a series that coincides with another still shows. */
  onTop?: boolean;
}

function markerAt(kind: Marker, cx: number, cy: number, color: string, title: string): string {
  const t = `<title>${escapeXml(title)}</title>`;
  const c = (v: number) => v.toFixed(1);
  switch (kind) {
    case 'square':
      return `<rect class="marker" x="${c(cx - 2.5)}" y="${c(cy - 2.5)}" width="5" height="5" fill="${color}">${t}</rect>`;
    case 'triangle':
      return `<path class="marker" d="M${c(cx)},${c(cy - 3.2)}L${c(cx + 3)},${c(cy + 2.2)}L${c(cx - 3)},${c(cy + 2.2)}Z" fill="${color}">${t}</path>`;
    case 'diamond':
      return `<path class="marker" d="M${c(cx)},${c(cy - 3.3)}L${c(cx + 3.3)},${c(cy)}L${c(cx)},${c(cy + 3.3)}L${c(cx - 3.3)},${c(cy)}Z" fill="${color}">${t}</path>`;
    default:
      return `<circle class="marker" cx="${c(cx)}" cy="${c(cy)}" r="2.4" fill="${color}">${t}</circle>`;
  }
}

/**
 * A line chart: one `<path class="series">` per series, a marker per point (so a lone point shows).
 * Each series has its own colour, dash pattern and marker shape; `yScale: 'log'` plots a logarithmic
 * y axis (values at or below zero break the line), `'auto'` does so when the values span more than
 * a factor of 20.
 */
export function lineChart(opts: {
  id: string;
  title: string;
  description: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  yScale?: 'linear' | 'log' | 'auto';
}): string {
  const xs = opts.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = opts.series.flatMap((s) => s.points.map((p) => p[1]).filter((v): v is number => v !== null && Number.isFinite(v)));
  const xMax = Math.max(1, ...xs);
  const yMax = ys.length > 0 ? Math.max(...ys) : 1;
  const positive = ys.filter((v) => v > 0);
  const yMin = positive.length > 0 ? Math.min(...positive) : 1;
  const log = positive.length > 0 && (opts.yScale === 'log' || (opts.yScale === 'auto' && yMax / yMin > 20));
  const styled = opts.series.map((s, i) => ({
    ...s,
    color: s.color ?? cycle(PALETTE, i),
    dash: s.dash ?? cycle(DASHES, i),
    marker: s.marker ?? cycle(MARKERS, i),
    width: s.width ?? 2,
  }));
  const painted = [...styled.filter((s) => !s.onTop), ...styled.filter((s) => s.onTop)];
  return renderFrame(
    { ...opts, xMax, yMax, yMin: log ? yMin : undefined },
    (x, y) => {
      if (ys.length === 0) return noData();
      return painted
        .map((s) => {
          let d = '';
          let pen = false;
          const dots: string[] = [];
          for (const [px, py] of s.points) {
            if (py === null || !Number.isFinite(py) || (log && py <= 0)) {
              pen = false;
              continue;
            }
            d += `${pen ? 'L' : 'M'}${x(px).toFixed(1)},${y(py).toFixed(1)}`;
            pen = true;
            dots.push(markerAt(s.marker, x(px), y(py), s.color, `${s.name}: ${fmt(py)} at ${fmt(px)} s`));
          }
          return `<g class="series-group" data-series="${escapeXml(s.name)}"><path class="series" d="${d}" fill="none" stroke="${s.color}" stroke-width="${s.width}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} stroke-linecap="butt"/>${dots.join('')}</g>`;
        })
        .join('');
    },
    styled.map((s) => ({ name: s.name, color: s.color, dash: s.dash, width: s.width, kind: 'line' as const })),
  );
}

export interface BarStack {
  name: string;
  values: number[];
  color?: string;
}

/** Stacked bars, one column per x value (bucket start), `width` wide in x units. */
export function stackedBarChart(opts: {
  id: string;
  title: string;
  description: string;
  xLabel: string;
  yLabel: string;
  xs: number[];
  width: number;
  stacks: BarStack[];
}): string {
  const totals = opts.xs.map((_, i) => opts.stacks.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const xMax = Math.max(1, ...opts.xs.map((x) => x + opts.width));
  const yMax = Math.max(0, ...totals);
  const colored = opts.stacks.map((s, i) => ({ ...s, color: s.color ?? cycle(PALETTE, i) }));
  return renderFrame(
    { ...opts, xMax, yMax: yMax || 1 },
    (x, y) => {
      if (yMax === 0) return noData();
      const rects: string[] = [];
      opts.xs.forEach((x0, i) => {
        let base = 0;
        const left = x(x0) + 0.5;
        const w = Math.max(1, x(x0 + opts.width) - x(x0) - 1);
        for (const s of colored) {
          const v = s.values[i] ?? 0;
          if (v <= 0) continue;
          const top = y(base + v);
          rects.push(
            `<rect class="bar" data-series="${escapeXml(s.name)}" x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${w.toFixed(1)}" height="${(y(base) - top).toFixed(1)}" fill="${s.color}"><title>${escapeXml(`${s.name}: ${v} at ${fmt(x0)} s`)}</title></rect>`,
          );
          base += v;
        }
      });
      return rects.join('');
    },
    colored.map((s) => ({ name: s.name, color: s.color, kind: 'box' as const })),
  );
}

function noData(): string {
  return `<text class="no-data" x="${M.left + PW / 2}" y="${M.top + PH / 2}" text-anchor="middle">no data</text>`;
}

function renderFrame(f: Frame, body: (x: (v: number) => number, y: (v: number) => number) => string, legend: LegendEntry[]): string {
  const xTicks = niceTicks(f.xMax, 8);
  const xScale = defined(xTicks.at(-1), 'the last tick of the x axis');
  const x = (v: number) => M.left + (v / xScale) * PW;
  if (f.yMin !== undefined) {
    const yTicks = logTicks(f.yMin, f.yMax);
    const lo = Math.log10(defined(yTicks[0], 'the first tick of the y axis'));
    const hi = Math.log10(defined(yTicks.at(-1), 'the last tick of the y axis'));
    const y = (v: number) => M.top + PH - ((Math.log10(v) - lo) / (hi - lo || 1)) * PH;
    return frameWith({ ...f, yLabel: `${f.yLabel} (log scale)` }, xTicks, yTicks, x, y, body(x, y), legend);
  }
  const yTicks = niceTicks(f.yMax, 5);
  const yScale = defined(yTicks.at(-1), 'the last tick of the y axis');
  const y = (v: number) => M.top + PH - (v / yScale) * PH;
  return frameWith(f, xTicks, yTicks, x, y, body(x, y), legend);
}

function frameWith(
  f: Frame,
  xTicks: number[],
  yTicks: number[],
  x: (v: number) => number,
  y: (v: number) => number,
  content: string,
  legend: LegendEntry[],
): string {
  const grid = yTicks
    .map(
      (t) =>
        `<line class="grid" x1="${M.left}" x2="${M.left + PW}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/><text class="tick" x="${M.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${fmt(t)}</text>`,
    )
    .join('');
  const xt = xTicks
    .map(
      (t) =>
        `<line class="axis" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${M.top + PH}" y2="${M.top + PH + 5}"/><text class="tick" x="${x(t).toFixed(1)}" y="${M.top + PH + 18}" text-anchor="middle">${fmt(t)}</text>`,
    )
    .join('');
  const legendItems = legend
    .map((l, i) => {
      const lx = M.left + (i % 4) * 160;
      const ly = Math.floor(i / 4) * 18;
      const mark =
        l.kind === 'line'
          ? `<line x1="${lx}" x2="${lx + 22}" y1="${ly + 8}" y2="${ly + 8}" stroke="${l.color}" stroke-width="${l.width ?? 2.5}"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''}/>`
          : `<rect x="${lx + 5}" y="${ly + 2}" width="12" height="12" fill="${l.color}"/>`;
      return `<g class="legend-item">${mark}<text x="${lx + 28}" y="${ly + 12}">${escapeXml(l.name)}</text></g>`;
    })
    .join('');
  const legendRows = Math.ceil(legend.length / 4);
  return (
    `<svg class="chart" data-chart="${f.id}" role="img" aria-labelledby="${f.id}-title ${f.id}-desc" viewBox="0 0 ${W} ${H + 4 + legendRows * 18}" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${f.id}-title">${escapeXml(f.title)}</title><desc id="${f.id}-desc">${escapeXml(f.description)}</desc>` +
    grid +
    xt +
    `<line class="axis" x1="${M.left}" x2="${M.left + PW}" y1="${M.top + PH}" y2="${M.top + PH}"/><line class="axis" x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + PH}"/>` +
    `<text class="axis-label" x="${M.left + PW / 2}" y="${M.top + PH + 38}" text-anchor="middle">${escapeXml(f.xLabel)}</text>` +
    `<text class="axis-label" transform="translate(16 ${M.top + PH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(f.yLabel)}</text>` +
    content +
    `<g class="legend" transform="translate(0 ${H + 2})">${legendItems}</g>` +
    `</svg>`
  );
}
