import { describe, expect, it } from 'vitest';
import { lineChart, logTicks } from './charts.js';
import { chooseBucketSeconds } from './buckets.js';

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

describe('chooseBucketSeconds', () => {
  it('keeps one-second buckets when a second holds enough events', () => {
    expect(chooseBucketSeconds({ durationS: 60, events: 600 })).toBe(1);
    expect(chooseBucketSeconds({ durationS: 60, events: 300 })).toBe(1);
  });

  it('widens the buckets at low rates to about five events each', () => {
    // 1 request per 2 s: one-second buckets alternate 0 and 1; ten-second ones hold 5 each.
    expect(chooseBucketSeconds({ durationS: 60, events: 30 })).toBe(10);
    expect(chooseBucketSeconds({ durationS: 120, events: 120 })).toBe(5);
    expect(chooseBucketSeconds({ durationS: 600, events: 300 })).toBe(10);
    expect(chooseBucketSeconds({ durationS: 600, events: 20 })).toBe(300);
    expect(chooseBucketSeconds({ durationS: 600, events: 150 })).toBe(30);
    expect(chooseBucketSeconds({ durationS: 100, events: 150 })).toBe(5);
    // The wait for the last answers after a 60 s schedule does not dilute the rate.
    expect(chooseBucketSeconds({ durationS: 61.6, events: 30 })).toBe(15);
    expect(chooseBucketSeconds({ durationS: 61.6, events: 30, activeS: 60 })).toBe(10);
  });

  it('keeps to at most 120 buckets however high the rate', () => {
    expect(chooseBucketSeconds({ durationS: 3600, events: 360_000 })).toBe(30);
    expect(chooseBucketSeconds({ durationS: 120, events: 100_000 })).toBe(1);
    expect(chooseBucketSeconds({ durationS: 121, events: 100_000 })).toBe(2);
    expect(chooseBucketSeconds({ durationS: 86_400, events: 1e7 })).toBe(900);
  });

  it('stays inside a run too short or too sparse for the average, and is a multiple of the recorder bucket', () => {
    expect(chooseBucketSeconds({ durationS: 10, events: 3 })).toBe(10);
    expect(chooseBucketSeconds({ durationS: 20, events: 4 })).toBe(15);
    expect(chooseBucketSeconds({ durationS: 0.5, events: 1 })).toBe(1);
    expect(chooseBucketSeconds({ durationS: 0, events: 0 })).toBe(1);
    expect(chooseBucketSeconds({ durationS: 1000, events: 10_000, baseS: 2 })).toBe(10);
    // 15 is not a multiple of 2: the next step that is.
    expect(chooseBucketSeconds({ durationS: 1000, events: 400, baseS: 2 })).toBe(30);
  });
});

describe('lineChart', () => {
  const chart = (series: Parameters<typeof lineChart>[0]['series'], yScale?: 'linear' | 'log' | 'auto') =>
    lineChart({ id: 'c', title: 'T', description: 'D', xLabel: 'x', yLabel: 'y', series, yScale });

  it('gives every series a drawn path, its own colour and dash, and a legend entry', () => {
    const flat: [number, number][] = [0, 10, 20, 30].map((t) => [t, 0.5]);
    const svg = chart([
      { name: 'a', points: flat },
      { name: 'b', points: flat },
      { name: 'c', points: flat },
      { name: 'd', points: flat },
    ]);
    const paths = seriesPaths(svg);
    expect(paths.map((p) => p.name)).toEqual(['a', 'b', 'c', 'd']);
    for (const p of paths) expect(p.d).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+){3}$/);
    expect(new Set(paths.map((p) => p.stroke)).size).toBe(4);
    expect(new Set(paths.map((p) => p.dash)).size).toBe(4);
    expect([...svg.matchAll(/<g class="legend-item">.*?<text[^>]*>([^<]+)<\/text><\/g>/g)].map((m) => m[1])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('paints an onTop series last, so it shows over one it coincides with', () => {
    const same: [number, number][] = [
      [0, 1],
      [1, 1],
    ];
    const svg = chart([
      { name: 'scheduled', points: same, onTop: true, width: 1.5 },
      { name: 'sent', points: same, width: 4 },
    ]);
    expect(seriesPaths(svg).map((p) => [p.name, p.width])).toEqual([
      ['sent', '4'],
      ['scheduled', '1.5'],
    ]);
    // The legend keeps the given order.
    expect(svg.indexOf('>scheduled</text>')).toBeLessThan(svg.indexOf('>sent</text>'));
  });

  it('plots values far apart on a log scale, and says so', () => {
    const svg = chart(
      [
        {
          name: 'slow',
          points: [
            [0, 2500],
            [1, 3000],
          ],
        },
        {
          name: 'fast',
          points: [
            [0, 20],
            [1, 25],
          ],
        },
      ],
      'auto',
    );
    expect(svg).toContain('y (log scale)');
    const [slow, fast] = seriesPaths(svg);
    const ys = (d: string) => [...d.matchAll(/,([\d.]+)/g)].map((m) => Number(m[1]));
    // On a linear axis up to 3000 the fast series would sit within 2 px of the bottom; here it has room.
    expect(Math.max(...ys(fast!.d)) - Math.min(...ys(slow!.d))).toBeGreaterThan(100);
    expect(Math.abs(ys(fast!.d)[0]! - ys(fast!.d)[1]!)).toBeGreaterThan(2);
    expect(
      chart(
        [
          {
            name: 'x',
            points: [
              [0, 100],
              [1, 300],
            ],
          },
        ],
        'auto',
      ),
    ).not.toContain('log scale');
  });

  it('picks log ticks covering the values', () => {
    expect(logTicks(20, 3000)).toEqual([20, 50, 100, 200, 500, 1000, 2000, 5000]);
    expect(logTicks(1, 1e6)).toEqual([1, 10, 100, 1000, 10_000, 100_000, 1_000_000]);
  });
});
