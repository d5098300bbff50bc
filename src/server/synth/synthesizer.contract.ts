import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMp3File } from '../../../test/helpers/audio.js';
import type { SynthesisRequest, Synthesizer } from '../ports/index.js';

const SHORT: SynthesisRequest = { text: 'The quick brown fox jumps over the lazy dog.', voice: 'af_heart', language: 'en-US', speed: 1 };

/**
 * What every Synthesizer owes the job runner (ports/synthesis.ts), run against each engine: the MP3 it
 * writes into the sink, in order, is what its result reports (bytes, duration, the request's voice,
 * speed and language) and decodes without an error (mpg123, an independent decoder); word timings come
 * when asked for and only then, in order and within the audio; estimates grow with the text; progress
 * ends at the whole. `open` makes the synthesizer; it is closed after the suite.
 */
export function describeSynthesizerContract(name: string, open: () => Synthesizer | Promise<Synthesizer>): void {
  describe(`Synthesizer contract: ${name}`, () => {
    let synth: Synthesizer;
    let dir: string;
    beforeAll(async () => {
      synth = await open();
      dir = await mkdtemp(join(tmpdir(), 'synth-contract-'));
    }, 60_000);
    afterAll(async () => {
      await synth?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    async function speak(req: SynthesisRequest) {
      const parts: Uint8Array[] = [];
      const fractions: number[] = [];
      const result = await synth.synthesize(req, { write: async (bytes) => void parts.push(bytes.slice()) }, { onProgress: (p) => fractions.push(p.fraction) });
      const path = join(dir, `${parts.length}-${Date.now()}.mp3`);
      await writeFile(path, Buffer.concat(parts));
      return { result, parts, fractions, audio: await decodeMp3File(path) };
    }

    it('writes decodable MP3 into the sink, as its result reports it', async () => {
      const { result, parts, fractions, audio } = await speak(SHORT);
      expect(parts.length).toBeGreaterThan(0);
      expect(result.bytes).toBe(parts.reduce((n, p) => n + p.byteLength, 0));
      expect(result).toMatchObject({ format: 'mp3', voice: SHORT.voice, speed: SHORT.speed, language: SHORT.language });
      expect(result.durationSeconds).toBeGreaterThan(0.5);
      expect(audio.errors).toBe(0);
      expect(audio.sampleRate).toBe(result.sampleRate);
      expect(Math.abs(audio.durationSeconds - result.durationSeconds) / result.durationSeconds).toBeLessThanOrEqual(0.05);
      expect(result.words).toBeUndefined();
      expect(fractions.at(-1)).toBe(1);
    });

    it('gives word timings when asked, in order and within the audio', async () => {
      const { result } = await speak({ ...SHORT, timestamps: 'word' });
      const words = result.words ?? [];
      expect(words.length).toBe(SHORT.text.split(' ').length);
      let last = 0;
      for (const w of words) {
        expect(w.start).toBeGreaterThanOrEqual(last);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
        expect(w.end).toBeLessThanOrEqual(result.durationSeconds + 0.01);
        last = w.start;
      }
    });

    it('estimates more audio and more time for a longer text', () => {
      const short = synth.estimateAudioSeconds(SHORT.text, 1, 'en-US');
      const long = synth.estimateAudioSeconds(SHORT.text.repeat(10), 1, 'en-US');
      expect(short).toBeGreaterThan(0);
      expect(long).toBeGreaterThan(short);
      expect(synth.estimateWallSeconds(SHORT.text.repeat(10), 1, 'en-US')).toBeGreaterThanOrEqual(synth.estimateWallSeconds(SHORT.text, 1, 'en-US'));
    });
  });
}
