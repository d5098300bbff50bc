import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSrt, renderWebVtt, timingsProblems } from '../src/contract/captions.js';
import type { WordTimingsFileBody } from '../src/contract/timing-schemas.js';
import { decodeMp3File } from './helpers/audio.js';
import { cueProblems, insideOutside, parseCaptions, withoutTimings } from './helpers/captions.js';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { runCli } from './helpers/cli.js';

/** Sentences with the pauses between them that make captions worth checking against the audio. */
const TEXT = 'Captions follow the voice. Each sentence starts after a short pause! Does the last cue end with the audio? It should.';

describe('agent-tts speak --captions and --timings against the reference server (eSpeak)', () => {
  let server: ListeningServer;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await listen({ RATE_POST_LIMIT: '100' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-captions-'));
    env = { AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!, XDG_CONFIG_HOME: join(dir, 'config') };
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes a WebVTT whose cues play in step with the MP3, and the word timings beside it (the done-when)', async () => {
    const [mp3, vtt, json] = ['talk.mp3', 'talk.vtt', 'talk.json'].map((f) => join(dir, f)) as [string, string, string];
    const result = await runCli(['speak', TEXT, '-o', mp3, '--captions', vtt, '--timings', json, '--voice', 'st_f1', '--speed', '1.0'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Saved ${vtt} (`);
    expect(result.stdout).toContain('WebVTT captions).');
    expect(result.stdout).toContain(`Saved ${json} (`);

    const audio = await decodeMp3File(mp3);
    expect(audio.errors).toBe(0);
    const cues = parseCaptions(await readFile(vtt, 'utf8'), 'vtt');
    // Increasing, inside the MP3's own length (from its decoded samples), and the text joined back.
    expect(cueProblems(cues, TEXT, audio.durationSeconds)).toEqual([]);
    expect(cues.length).toBeGreaterThanOrEqual(4); // one sentence at least per cue
    // In step: the speech is inside the cues, the pauses between sentences outside them (measured
    // about 130 times louder inside; cues a quarter second late bring it down to about 1).
    const { inside, outside } = insideOutside(audio, cues);
    expect(inside).toBeGreaterThan(20 * outside);
    const late = insideOutside(
      audio,
      cues.map((c) => ({ ...c, start: c.start + 0.25, end: Math.min(c.end + 0.25, audio.durationSeconds) })),
    );
    expect(late.inside).toBeLessThan(20 * late.outside);

    const file = JSON.parse(await readFile(json, 'utf8')) as WordTimingsFileBody;
    expect(timingsProblems(TEXT, file, 'en')).toEqual([]);
    expect(Math.abs(file.duration_seconds - audio.durationSeconds)).toBeLessThan(0.1);
    // The WebVTT holds the cues of the JSON file.
    expect(await readFile(vtt, 'utf8')).toBe(renderWebVtt(file));
    // Nothing temporary is left behind.
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('writes SRT for a .srt file, and reports the files in --json', async () => {
    const srt = join(dir, 'Talk.SRT');
    const result = await runCli(['speak', TEXT, '-o', join(dir, 'srt.mp3'), '--captions', srt, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { job: { timings: { srt_url: string }; audio: { duration_seconds: number } }; timing_files: unknown[] };
    expect(report.job.timings.srt_url).toMatch(/\/v1\/captions\/[0-9a-f-]{36}\.srt\?expires=\d+&sig=/);
    expect(report.timing_files).toEqual([{ path: srt, bytes: (await readFile(srt)).length, format: 'srt' }]);
    const text = await readFile(srt, 'utf8');
    expect(cueProblems(parseCaptions(text, 'srt'), TEXT, report.job.audio.duration_seconds)).toEqual([]);
    // A .json URL made from the .srt one is refused: the signature covers the format.
    expect((await fetch(report.job.timings.srt_url.replace('.srt?', '.json?'))).status).toBe(404);
    expect(text).toMatch(/^1\n\d{2}:\d{2}:\d{2},\d{3} --> /);
    expect(renderSrt({ cues: parseCaptions(text, 'srt') })).toBe(text);
  });

  it('refuses before sending anything: a caption file that is not .vtt or .srt, "-", --no-download, the same file twice, an unwritable path', async () => {
    const requests = () =>
      server
        .logs()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"')).length;
    const before = requests();
    const here = await mkdtemp(join(dir, 'refused-'));
    const cases: Array<[string[], number, string]> = [
      [
        ['--captions', join(dir, 'out.txt')],
        2,
        `--captions takes a file ending in .vtt (WebVTT) or .srt (SubRip), which sets the format; got "${join(dir, 'out.txt')}"`,
      ],
      [['--captions', join(dir, 'out')], 2, '--captions takes a file ending in .vtt (WebVTT) or .srt (SubRip)'],
      [['--captions', '-'], 2, '--captions takes a file ending in .vtt'],
      [['--timings', '-'], 2, '--timings needs a file path; standard output ("-") is for the audio'],
      [['--captions', join(dir, 'x.vtt'), '--no-download'], 2, '--no-download and --captions cannot be combined'],
      [['-o', join(dir, 'same.vtt'), '--captions', join(dir, 'same.vtt')], 2, `--captions and -o name the same file, ${join(dir, 'same.vtt')}`],
      [
        ['--captions', '/nonexistent/x.vtt'],
        11,
        'Cannot write WebVTT captions to /nonexistent/x.vtt: the directory /nonexistent does not exist. Nothing was sent to the service.',
      ],
      [['--timings', join(dir, 'missing', 't.json')], 11, `Cannot write word timings to ${join(dir, 'missing', 't.json')}: the directory`],
    ];
    for (const [args, code, message] of cases) {
      // In the test's directory, where the audio would go (./<job_id>.mp3) if a refusal failed.
      const result = await runCli(['speak', TEXT, ...args], env, '', { cwd: here });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
      expect(result.stderr).toContain(message);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(requests()).toBe(before);
    expect(await readdir(here)).toEqual([]);
  });

  it('documents both flags in --help', async () => {
    const result = await runCli(['speak', '--help'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--captions <file>\s+also save captions timed to the MP3: out\.vtt \(WebVTT\) or out\.srt \(SubRip\)/);
    expect(result.stdout).toMatch(/--timings <file>\s+also save the word timings as JSON/);
    expect(result.stdout).toContain('12   --captions/--timings: the service returned no word timings');
  });
});

describe('agent-tts speak --captions against a service without word timings', () => {
  let server: ListeningServer;
  let baseOnly: { url: string; close(): Promise<void> };
  let dir: string;
  beforeAll(async () => {
    server = await listen({ RATE_POST_LIMIT: '100' });
    baseOnly = await withoutTimings(server.baseUrl);
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-no-timings-'));
  });
  afterAll(async () => {
    await baseOnly?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('saves the audio, writes no captions, and exits 12 saying the service does not offer them', async () => {
    const env = { AGENT_TTS_BASE_URL: baseOnly.url, AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!, XDG_CONFIG_HOME: join(dir, 'config') };
    const mp3 = join(dir, 'a.mp3');
    const vtt = join(dir, 'a.vtt');
    const result = await runCli(['speak', TEXT, '-o', mp3, '--captions', vtt], env);
    expect(result.code).toBe(12);
    expect(result.stderr).toMatch(
      /^Error: The service returned no word timings for job [0-9a-f-]{36}, though the request asked for them \(timestamps: "word"\): it does not offer word timings and captions, an extension beyond the base API\. .*a\.vtt not written\./,
    );
    expect(result.stderr).toContain(`The audio was saved to ${mp3}.`);
    expect((await decodeMp3File(mp3)).durationSeconds).toBeGreaterThan(1);
    expect(await readdir(dir)).not.toContain('a.vtt');

    const json = await runCli(['speak', TEXT, '-o', join(dir, 'b.mp3'), '--timings', join(dir, 'b.json'), '--json'], env);
    expect(json.code).toBe(12);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      exit_code: 12,
      error: { code: 'NO_TIMINGS', hint: `The audio was saved to ${join(dir, 'b.mp3')}.` },
    });
  });
});
