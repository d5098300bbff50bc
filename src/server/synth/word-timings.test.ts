// Word timings from real eSpeak synthesis, checked against the MP3 as a decoder plays it (mpg123): every
// word that follows a pause starts within 50 ms of the sound that follows, the last word ends within 50 ms
// of the end of the sound, and the timings pass the contract's checks. On both builds of the engine:
// eSpeak NG and LAME in WebAssembly, and the system's (native.ts); the native build runs where its
// libraries are installed, and under CI=true a missing native build fails rather than skips.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timingsProblems } from '../../contract/captions.js';
import type { WordTimingBody } from '../../contract/timing-schemas.js';
import type { SynthesisRequest, SynthesisResult, Synthesizer } from '../ports/index.js';
import { chunkText } from './chunker.js';
import { createSynthesizer } from './index.js';
import { findNativeLibraries } from './native.js';
import type { EspeakBuild } from './types.js';
import { decodeMp3File, energyOnsets, soundEnd, type DecodedAudio } from '../../../test/helpers/audio.js';
import { synthesizeToFile } from './to-file.js';

const TOLERANCE_S = 0.05;
/**
 * Pauses at speed 1.5 hold the decaying tail of the word before (above −46 dBFS for up to 90 ms), so an
 * onset is sound of at least −40 dBFS (5 ms RMS) after 30 ms below it. The end of the sound is the last
 * 5 ms at or above −60 dBFS: the final pause decodes to silence far below that, and a word's last sound
 * (the buzz of a final "z") can fade for 60 ms between −40 and −48 dBFS.
 */
const ONSET = { threshold: 0.01, minQuietSeconds: 0.03 };
const END = { threshold: 0.001 };

const nativeFound = 'espeak' in findNativeLibraries();
const BUILDS: { build: EspeakBuild; run: boolean }[] = [
  { build: 'wasm', run: true },
  { build: 'native', run: nativeFound || process.env.CI === 'true' },
];

let synth: Synthesizer;
let dir: string;
let n = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'word-timings-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function speak(req: SynthesisRequest): Promise<{ result: SynthesisResult; words: WordTimingBody[]; audio: DecodedAudio }> {
  const path = join(dir, `${n++}.mp3`);
  const result = await synthesizeToFile(synth, req, path);
  const audio = await decodeMp3File(path);
  expect(audio.errors).toBe(0);
  expect(result.words, 'words were asked for').toBeDefined();
  expect(timingsProblems(req.text, { words: result.words!, duration_seconds: result.durationSeconds }, req.language)).toEqual([]);
  return { result, words: result.words!, audio };
}

/** How far (ms) each word's start is from the first energy onset at or after 50 ms before it. */
function onsetErrors(words: readonly WordTimingBody[], audio: DecodedAudio): { word: string; ms: number }[] {
  const onsets = energyOnsets(audio.samples, audio.sampleRate, ONSET);
  return words.map((w) => {
    const onset = onsets.find((t) => t >= w.start - TOLERANCE_S);
    return { word: w.word, ms: onset === undefined ? Number.POSITIVE_INFINITY : Math.round((onset - w.start) * 1000) };
  });
}

function expectOnTime(words: readonly WordTimingBody[], audio: DecodedAudio, label: string) {
  const late = onsetErrors(words, audio).filter((e) => Math.abs(e.ms) > TOLERANCE_S * 1000);
  expect(late, `${label}: words more than 50 ms from their onset`).toEqual([]);
}

function expectEndsWithSound(words: readonly WordTimingBody[], audio: DecodedAudio, label: string) {
  const end = soundEnd(audio.samples, audio.sampleRate, END);
  expect(Math.abs(words.at(-1)!.end - end), `${label}: last word ends at ${words.at(-1)!.end} s, the sound at ${end} s`).toBeLessThanOrEqual(TOLERANCE_S);
}

/** Texts with a pause before every word: sentences of one word, or words in a comma-separated list. */
const PAUSED: { language: string; voice: string; text: string }[] = [
  { language: 'en-US', voice: 'af_heart', text: 'One. Two. Three. Apple, table, kitten, pocket, garden, thistle, seven, zebra.' },
  { language: 'fr-FR', voice: 'ff_siwis', text: 'Un. Deux. Trois. Pomme, table, chaton, poche, jardin, soleil, fenêtre.' },
  { language: 'ru', voice: 'st_f1', text: 'Один. Два. Три. Яблоко, стол, кошка, карман, сад, окно, тетрадь.' },
  { language: 'ja', voice: 'jf_alpha', text: 'カメラ、テレビ、ラジオ。さくら。ねこ、いぬ、とり、そら。' },
];

for (const { build, run } of BUILDS) {
  describe.skipIf(!run)(`word timings of eSpeak speech (${build}), measured on the decoded MP3`, () => {
    beforeAll(() => {
      // Under CI=true without the native libraries this throws, naming what is missing: a failure, not a skip.
      synth = createSynthesizer({ threads: 2, espeakBuild: build });
      expect(synth.engine?.name).toBe(`espeak-${build}`);
    });
    afterAll(() => synth?.close());

    for (const { language, voice, text } of PAUSED) {
      it(`${language}: every word starts within 50 ms of its onset, the last ends within 50 ms of the sound`, async () => {
        const { words, audio } = await speak({ text, voice, language, speed: 1, timestamps: 'word' });
        expectOnTime(words, audio, language);
        expectEndsWithSound(words, audio, language);
        // Each word ends where its sound does, before the pause after it (not at the next word's start).
        for (let i = 0; i + 1 < words.length; i++) expect(words[i + 1]!.start - words[i]!.end, words[i]!.word).toBeGreaterThan(0.005);
      });
    }

    for (const speed of [0.5, 1.5]) {
      it(`keeps to the audio at speed ${speed}`, async () => {
        const { text, voice, language } = PAUSED[0]!;
        const { words, audio, result } = await speak({ text, voice, language, speed, timestamps: 'word' });
        expectOnTime(words, audio, `speed ${speed}`);
        expectEndsWithSound(words, audio, `speed ${speed}`);
        expect(result.durationSeconds).toBeGreaterThan(0);
      });
    }

    it('places emoji, non-BMP letters, & and < (escaped for eSpeak) and keeps offsets into the original text', async () => {
      const text = 'Smile 😀! Set 𝒳? Tom & Jerry. A < b.';
      const { words, audio } = await speak({ text, voice: 'af_heart', language: 'en-US', speed: 1, timestamps: 'word' });
      expect(words.map((w) => w.word)).toEqual(['Smile', '😀', 'Set', '𝒳', 'Tom', 'Jerry', 'A', 'b']);
      expect(words.find((w) => w.word === '𝒳')).toMatchObject({ text_start: 13, text_end: 14, utf16_start: 14, utf16_end: 16 });
      // eSpeak pauses after each sentence: the words that open one are checked against the sound.
      const opening = words.filter((w) => ['Smile', 'Set', 'Tom', 'A'].includes(w.word));
      expectOnTime(opening, audio, 'sentence openings');
      expectEndsWithSound(words, audio, 'emoji text');
      // "Jerry" comes from its own event, after "Tom" and the spoken "and" of "&".
      const tom = words.find((w) => w.word === 'Tom')!;
      const jerry = words.find((w) => w.word === 'Jerry')!;
      expect(jerry.start - tom.start).toBeGreaterThan(0.4);
    });

    it('times a text of several chunks: each chunk’s first word within 50 ms of its onset', async () => {
      const sentences = [
        'The morning train left the station on time.',
        'Passengers read newspapers and looked out at the fields.',
        'Nobody noticed the small dog sleeping under the last seat.',
        'At noon the conductor found it and smiled.',
      ];
      const text = Array.from({ length: 60 }, (_, i) => sentences[i % sentences.length]).join(' ');
      const req: SynthesisRequest = { text, voice: 'am_michael', language: 'en-US', speed: 1, timestamps: 'word' };
      const { words, audio, result } = await speak(req);
      const chunks = chunkText(text, { locale: req.language });
      expect(result.chunks).toBe(chunks.length);
      expect(chunks.length).toBeGreaterThan(4);
      const firsts = chunks.map((c) => words.find((w) => w.utf16_start === c.start)!);
      expect(firsts.every(Boolean)).toBe(true);
      expectOnTime(firsts, audio, 'first words of chunks');
      expectEndsWithSound(words, audio, 'long text');
    });

    it('returns no words when none were asked for', async () => {
      const path = join(dir, 'plain.mp3');
      const result = await synthesizeToFile(synth, { text: 'One. Two. Three.', voice: 'af_heart', language: 'en-US', speed: 1 }, path);
      expect(result.words).toBeUndefined();
      expect('words' in result).toBe(false);
    });
  });
}
