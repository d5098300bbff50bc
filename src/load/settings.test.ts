import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import { parseDuration, parseLengths, parseMix, parseRate, parseStages } from './flag-values.js';
import { readSettings } from './settings.js';

const base = ['--fixtures', 'fx.json'];

describe('durations, rates, stages and the mix', () => {
  it('reads durations with units, glued units and bare seconds', () => {
    expect(parseDuration('500ms', 'x')).toBe(500);
    expect(parseDuration('30s', 'x')).toBe(30_000);
    expect(parseDuration('2m', 'x')).toBe(120_000);
    expect(parseDuration('1m30s', 'x')).toBe(90_000);
    expect(parseDuration('1.5h', 'x')).toBe(5_400_000);
    expect(parseDuration('20', 'x')).toBe(20_000);
    for (const bad of ['', 's', '10x', '1m30', '-5s', 'ten seconds']) expect(() => parseDuration(bad, '--duration'), bad).toThrow(UsageError);
  });

  it('reads rates per second, minute or hour', () => {
    expect(parseRate('2', 'x')).toBe(2);
    expect(parseRate('0.5', 'x')).toBe(0.5);
    expect(parseRate('120/m', 'x')).toBe(2);
    expect(parseRate('3600/h', 'x')).toBe(1);
    for (const bad of ['', 'fast', '-1', '2/d', '1e3']) expect(() => parseRate(bad, '--rate'), bad).toThrow(UsageError);
  });

  it('reads stages as duration:rate and refuses anything else', () => {
    expect(parseStages('30s:2,60s:10,30s:0')).toEqual([
      { durationMs: 30_000, target: 2 },
      { durationMs: 60_000, target: 10 },
      { durationMs: 30_000, target: 0 },
    ]);
    for (const bad of ['', '30s', '30s:x', '0s:2', 'x:2']) expect(() => parseStages(bad), bad).toThrow(UsageError);
  });

  it('reads the mix with named classes, lengths and plain character counts', () => {
    const lengths = parseLengths(['long=20000']);
    expect(parseMix('short=80,long=20', lengths)).toEqual([
      { name: 'short', weight: 80, chars: 100 },
      { name: 'long', weight: 20, chars: 20_000 },
    ]);
    expect(parseMix('300=1', lengths)).toEqual([{ name: '300', weight: 1, chars: 300 }]);
    for (const bad of ['', 'huge=10', 'short', 'short=-1', 'short=0', 'short=1,short=2', '0=5', '600000=1'])
      expect(() => parseMix(bad, lengths), bad).toThrow(UsageError);
    expect(() => parseLengths(['long=0'])).toThrow(UsageError);
    expect(() => parseLengths(['long'])).toThrow(UsageError);
  });
});

describe('the command line', () => {
  it('takes a plain rate and duration, with the API defaults for the limits', () => {
    const s = readSettings([...base, '--rate', '2', '--duration', '20s']);
    expect(s.stages).toEqual([{ durationMs: 20_000, target: 2 }]);
    expect(s.startRate).toBe(2);
    expect(s.postLimit).toBe(1);
    expect(s.rateWindowSeconds).toBe(60);
    expect(s.mix.map((m) => m.name)).toEqual(['short', 'long']);
    expect(s.voices).toEqual(['af_heart']);
    expect(s.speeds).toEqual([1.2]);
  });

  it('takes stages from a start rate of 0, voices, speeds, limits and thresholds', () => {
    const s = readSettings([
      ...base,
      '--stages',
      '10s:2,10s:0',
      '--voices',
      'af_heart,st_m1',
      '--speeds',
      '1,1.5',
      '--post-limit',
      '100',
      '--rate-window',
      '10s',
      '--threshold',
      'error_rate<1%',
      '--allow-429',
    ]);
    expect(s.startRate).toBe(0);
    expect(s.voices).toEqual(['af_heart', 'st_m1']);
    expect(s.speeds).toEqual([1, 1.5]);
    expect(s.postLimit).toBe(100);
    expect(s.rateWindowSeconds).toBe(10);
    expect(s.allow429).toBe(true);
    expect(s.thresholds).toEqual([{ expression: 'error_rate<1%', metric: 'error_rate', op: '<', value: 0.01 }]);
  });

  it.each([
    [[], /--fixtures/],
    [['--fixtures', 'f'], /no arrival rate/],
    [[...base, '--rate', '0'], /above 0/],
    [[...base, '--rate', '2', '--stages', '1s:1'], /either --stages or --rate/],
    [[...base, '--rate', '2', '--duration', '0s'], /longer than 0/],
    [[...base, '--stages', '5s:0'], /every rate is 0/],
    [[...base, '--rate', '1', '--voices', 'robot'], /not a voice id/],
    [[...base, '--rate', '1', '--speeds', '3'], /--speeds/],
    [[...base, '--rate', '1', '--post-limit', '0'], /--post-limit/],
    [[...base, '--rate', '1', '--threshold', 'p95<1s'], /unknown metric/],
    [[...base, '--rate', '1', '--threshold', 'error_rate<1s'], /not a time/],
    [[...base, '--rate', '1', '--threshold', 'time_to_audio_p95 about 3s'], /expected <metric><op><value>/],
    [[...base, '--rate', '1', '--bogus'], /Unknown option/],
    [[...base, 'stray'], /positional/],
  ])('refuses %j with one line (exit 2)', (argv, message) => {
    let error: unknown;
    try {
      readSettings(argv as string[]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('writes its reports to --out-dir, and still reads the former --out with a notice', () => {
    const notices: string[] = [];
    expect(readSettings([...base, '--rate', '1', '--out-dir', 'reports'], (line) => notices.push(line)).outDir).toBe('reports');
    expect(notices).toEqual([]);
    expect(readSettings([...base, '--rate', '1', '--out', 'old'], (line) => notices.push(line)).outDir).toBe('old');
    expect(notices).toEqual(['--out is now --out-dir; the old name still works for now.']);
  });

  it('reads --timings-share as a fraction or a percentage, 0 by default', () => {
    expect(readSettings([...base, '--rate', '1']).timingsShare).toBe(0);
    expect(readSettings([...base, '--rate', '1', '--timings-share', '0.2']).timingsShare).toBe(0.2);
    expect(readSettings([...base, '--rate', '1', '--timings-share', '25%']).timingsShare).toBe(0.25);
    expect(readSettings([...base, '--rate', '1', '--timings-share', '1']).timingsShare).toBe(1);
    for (const bad of ['1.5', '-0.1', '120%', 'some', ''])
      expect(() => readSettings([...base, '--rate', '1', `--timings-share=${bad}`]), bad).toThrow(
        `--timings-share must be a share from 0 to 1 (0.2) or a percentage (20%), got ${JSON.stringify(bad)}`,
      );
  });

  it('opens no stream unless --stream asks', () => {
    expect(readSettings([...base, '--rate', '1']).stream).toBe(false);
    expect(readSettings([...base, '--rate', '1', '--stream']).stream).toBe(true);
  });

  it('answers --help without needing anything else', () => {
    expect(readSettings(['--help']).help).toBe(true);
  });
});
