import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENCODER_JOIN_SAMPLES, encodeChunk } from './mp3-encode.js';
import { countFrames, parseFrameHeader } from './mp3-frames.js';
import { decodeMp3File, rms } from '../../../test/helpers/audio.js';

const dir = await mkdtemp(join(tmpdir(), 'synth-mp3-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const tone = (seconds: number, rate: number, hz = 220) =>
  Int16Array.from({ length: Math.round(seconds * rate) }, (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * hz * i) / rate)));

async function decode(bytes: Uint8Array) {
  const path = join(dir, `${Math.random()}.mp3`);
  await writeFile(path, bytes);
  return decodeMp3File(path);
}

describe('encodeChunk', () => {
  it('writes CBR MPEG-2 Layer III frames whose count gives the decoded length exactly', async () => {
    const chunk = await encodeChunk({ samples: tone(2, 22050), sampleRate: 22050, outputRate: 22050, pauseSamples: 0, bitrateKbps: 48 });
    const header = parseFrameHeader(chunk.mp3, 0)!;
    expect(header).toMatchObject({ sampleRate: 22050, bitrateKbps: 48, samples: 576 });
    expect(countFrames(chunk.mp3).samples).toBe(chunk.decodedSamples);
    const decoded = await decode(chunk.mp3);
    expect(decoded.errors).toBe(0);
    expect(decoded.samples.length).toBe(chunk.decodedSamples);
    expect(chunk.decodedSamples - chunk.speechSamples).toBeGreaterThanOrEqual(1105);
    expect(rms(decoded.samples)).toBeGreaterThan(0.2);
  });

  it('trims silence, resamples, and appends the pause', async () => {
    const rate = 24000;
    const padded = new Int16Array(rate * 3);
    padded.set(tone(1, rate), rate); // one second of tone in the middle of three
    const chunk = await encodeChunk({ samples: padded, sampleRate: rate, outputRate: 22050, pauseSamples: 11025, bitrateKbps: 48 });
    expect(chunk.speechSamples).toBeGreaterThan(22050);
    expect(chunk.speechSamples).toBeLessThan(22050 * 1.05);
    const expected = chunk.speechSamples + 11025 + ENCODER_JOIN_SAMPLES;
    expect(Math.abs(chunk.decodedSamples - expected)).toBeLessThanOrEqual(576);
  });

  it('produces streams that concatenate into one file decoding to the sum of their lengths', async () => {
    const parts = await Promise.all(
      [1, 0.5, 2].map((s) => encodeChunk({ samples: tone(s, 22050, 300), sampleRate: 22050, outputRate: 22050, pauseSamples: 2000, bitrateKbps: 48 })),
    );
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.mp3.length, 0));
    let offset = 0;
    for (const p of parts) {
      joined.set(p.mp3, offset);
      offset += p.mp3.length;
    }
    const decoded = await decode(joined);
    expect(decoded.errors).toBe(0);
    expect(decoded.samples.length).toBe(parts.reduce((n, p) => n + p.decodedSamples, 0));
  });
});

describe('countFrames', () => {
  it('rejects bytes that are not a frame stream', () => {
    expect(() => countFrames(new Uint8Array([1, 2, 3, 4, 5]))).toThrow(/No MPEG frame header/);
  });
});
