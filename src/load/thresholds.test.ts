import { describe, expect, it } from 'vitest';
import { METRICS, ThresholdSyntaxError, describeResult, evaluateThresholds, parseThreshold } from './thresholds.js';

describe('thresholds', () => {
  it('parses the issue examples, with units and percentages', () => {
    expect(parseThreshold('inline_share>=0.9')).toMatchObject({ metric: 'inline_share', op: '>=', value: 0.9 });
    expect(parseThreshold('time_to_audio_p95<15s')).toMatchObject({ metric: 'time_to_audio_p95', op: '<', value: 15_000 });
    expect(parseThreshold('error_rate<0.01')).toMatchObject({ metric: 'error_rate', op: '<', value: 0.01 });
    expect(parseThreshold(' submit_latency_p99 <= 250 ')).toMatchObject({ op: '<=', value: 250 });
    expect(parseThreshold('time_to_audio_job_max<2m')).toMatchObject({ value: 120_000 });
    expect(parseThreshold('time_to_audio_p50<1ms')).toMatchObject({ value: 1 });
    expect(parseThreshold('rate_limited_rate==0%')).toMatchObject({ op: '==', value: 0 });
    expect(parseThreshold('completed!=0')).toMatchObject({ op: '!=', value: 0 });
  });

  it.each(['', 'inline_share', 'inline_share=>0.9', 'latency<1s', 'completed<5s', 'time_to_audio_p95<5%', 'error_rate<abc'])('refuses %j', (expr) => {
    expect(() => parseThreshold(expr)).toThrow(ThresholdSyntaxError);
  });

  it('judges each one, and a metric without samples fails', () => {
    const metrics = { inline_share: 0.95, time_to_audio_p95: 16_000, error_rate: 0, time_to_audio_job_p95: null };
    const results = evaluateThresholds(
      ['inline_share>=0.9', 'time_to_audio_p95<15s', 'error_rate<0.01', 'time_to_audio_job_p95<1m', 'error_rate<0'].map(parseThreshold),
      metrics,
    );
    expect(results.map((r) => r.pass)).toEqual([true, false, true, false, false]);
    expect(results[3]!.actual).toBeNull();
    expect(describeResult(results[1]!)).toBe('FAIL  time_to_audio_p95<15s  (time_to_audio_p95 < 15000 ms; measured 16000 ms)');
    expect(describeResult(results[3]!)).toContain('no samples');
  });

  it('knows every time family with every statistic', () => {
    for (const family of ['time_to_audio', 'time_to_audio_inline', 'time_to_audio_job', 'submit_latency', 'download_time', 'stream_first_byte']) {
      for (const stat of ['p50', 'p90', 'p95', 'p99', 'max', 'mean', 'min']) expect(METRICS[`${family}_${stat}`]?.kind).toBe('time');
    }
  });
});
