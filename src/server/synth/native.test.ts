// The native build of the engine (native.ts): the system's LAME gives the bytes LAME in WebAssembly
// gives at the same quality and, at its own faster one, the same format and length; the system's eSpeak
// NG speaks with word events as the WebAssembly build does, each pool thread on an instance of its own. Runs where the libraries are installed; under CI=true their absence fails.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeMp3File, rms } from '../../../test/helpers/audio.js';
import { espeakSettings } from './espeak-voices.js';
import { espeakSynthesize } from './espeak-wasm.js';
import { encodeChunk, useEncoder } from './mp3-encode.js';
import { parseFrameHeader } from './mp3-frames.js';
import { findNativeLibraries, NATIVE_LAME_QUALITY, nativeEspeak, nativeLame } from './native.js';
import { createSynthesizer } from './synthesizer.js';
import { synthesizeToFile } from './to-file.js';

const found = findNativeLibraries();
const run = 'espeak' in found || process.env.CI === 'true';
const dir = await mkdtemp(join(tmpdir(), 'synth-native-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

function libraries() {
  if (!('espeak' in found)) throw new Error(`The native engine is not installed: ${found.missing}`);
  return found;
}

describe('finding the native libraries', () => {
  it('names what is missing and how to install it', () => {
    const missing = findNativeLibraries([dir]);
    expect(missing).toEqual({ missing: expect.stringContaining('libespeak-ng.so.1 (eSpeak NG) and libmp3lame.so.0 (LAME) not found in') });
    expect('missing' in missing && missing.missing).toContain('apt-get install espeak-ng lame');
  });

  it.skipIf(!run)('finds eSpeak NG and LAME here, with their versions', () => {
    expect(libraries().version).toMatch(/^eSpeak NG [\d.]+.*, LAME [\d.]+/);
  });
});

describe.skipIf(!run)('the native build', () => {
  const rate = 22050;
  const samples = Int16Array.from({ length: rate * 2 }, (_, i) =>
    Math.round(9000 * Math.sin((2 * Math.PI * 180 * i) / rate) * Math.sin((Math.PI * i) / (rate * 2))),
  );
  const task = () => ({ samples: samples.slice(), sampleRate: rate, outputRate: 22050 as const, pauseSamples: 3000, bitrateKbps: 48 as const });

  it("encodes the same MP3 bytes as LAME in WebAssembly at LAME's default quality", async () => {
    const wasm = await encodeChunk(task());
    useEncoder(nativeLame(libraries().lame, 3));
    const native = await encodeChunk(task());
    expect(native.mp3.length).toBeGreaterThan(10_000);
    expect(Buffer.from(native.mp3).equals(Buffer.from(wasm.mp3))).toBe(true);
    expect(native.decodedSamples).toBe(wasm.decodedSamples);
    expect(parseFrameHeader(native.mp3, 0)).toMatchObject({ sampleRate: 22050, bitrateKbps: 48, samples: 576 });
  });

  it('encodes at its own quality the same format, length and duration in other bytes, which decode to the same tone', async () => {
    useEncoder(nativeLame(libraries().lame, 3));
    const reference = await encodeChunk(task());
    useEncoder(nativeLame(libraries().lame));
    const fast = await encodeChunk(task());
    expect(NATIVE_LAME_QUALITY).toBe(7);
    expect(Buffer.from(fast.mp3).equals(Buffer.from(reference.mp3))).toBe(false);
    expect(fast.mp3.length).toBe(reference.mp3.length);
    expect(fast.decodedSamples).toBe(reference.decodedSamples);
    expect(parseFrameHeader(fast.mp3, 0)).toMatchObject({ sampleRate: 22050, bitrateKbps: 48, samples: 576 });
    const path = (name: string) => join(dir, name);
    await writeFile(path('reference.mp3'), reference.mp3);
    await writeFile(path('fast.mp3'), fast.mp3);
    const [a, b] = await Promise.all([decodeMp3File(path('reference.mp3')), decodeMp3File(path('fast.mp3'))]);
    expect(b.errors).toBe(0);
    expect(b.samples.length).toBe(a.samples.length);
    // The two decodings differ by coding noise only: well under a tenth of the tone's level.
    const difference = Float32Array.from(a.samples, (s, i) => s - (b.samples[i] ?? 0));
    expect(rms(a.samples)).toBeGreaterThan(0.1);
    expect(rms(difference)).toBeLessThan(rms(a.samples) / 10);
  });

  it('speaks with word events at the offsets and times the WebAssembly build gives', async () => {
    const text = 'Tom & Jerry ran home. Then they slept.';
    const settings = espeakSettings('af_heart', 'en-US', 1);
    const native = nativeEspeak(libraries().espeak)(text, settings, { wordEvents: true });
    const wasm = await espeakSynthesize(text, settings, { wordEvents: true });
    expect(native.sampleRate).toBe(22050);
    expect(Math.abs(native.samples.length - wasm.samples.length) / wasm.samples.length).toBeLessThan(0.05);
    // eSpeak NG 1.51 (Debian's) also reports a word at the space after a sentence, which no word of the
    // text contains (word-placement.ts places words by the events inside them): the rest are compared.
    const inWords = (marks: typeof native.marks) => marks!.filter((m) => /\S/.test(text[m.offset]!));
    expect(inWords(native.marks).map((m) => m.offset)).toEqual(inWords(wasm.marks).map((m) => m.offset));
    const wasmMarks = inWords(wasm.marks);
    const gaps = inWords(native.marks).map((m, i) => Math.abs(m.ms - wasmMarks[i]!.ms));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(30);
  });

  it('runs a job on a pool of several threads, each with its own eSpeak NG, into a playable MP3', async () => {
    const synth = createSynthesizer({ threads: 2, espeakBuild: 'native' });
    try {
      expect(synth.engine?.name).toBe('espeak-native');
      const text = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} is spoken by one of two threads at the same time as another.`).join(' ');
      const path = join(dir, 'pool.mp3');
      const result = await synthesizeToFile(synth, { text, voice: 'am_michael', language: 'en-US', speed: 1 }, path);
      expect(result.chunks).toBeGreaterThan(2);
      const audio = await decodeMp3File(path);
      expect(audio.errors).toBe(0);
      expect(audio.sampleRate).toBe(22050);
      expect(audio.samples.length / 22050).toBeCloseTo(result.durationSeconds, 2);
      expect(rms(audio.samples)).toBeGreaterThan(0.02);
    } finally {
      await synth.close();
    }
  });
});

describe('forcing the native build', () => {
  it.skipIf(!run)('reports its libraries', () => {
    const synth = createSynthesizer({ threads: 1, espeakBuild: 'native' });
    expect(synth.engine).toEqual({ name: 'espeak-native', detail: libraries().version });
    return synth.close();
  });

  it('runs WebAssembly when asked, whatever is installed', () => {
    const synth = createSynthesizer({ threads: 1, espeakBuild: 'wasm' });
    expect(synth.engine?.name).toBe('espeak-wasm');
    return synth.close();
  });
});
