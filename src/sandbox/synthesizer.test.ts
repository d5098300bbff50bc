import { MPEGDecoder } from 'mpg123-decoder';
import { describe, expect, it } from 'vitest';
import { InstantSynthesizer } from './synthesizer.js';

/** The sandbox's audio: precomputed silent frames (no encoder), decoded by a real MP3 decoder. */
async function speak(text: string) {
  const parts: Uint8Array[] = [];
  const result = await new InstantSynthesizer(10, 4).synthesize(
    { text, voice: 'af_heart', language: 'en', speed: 1 },
    { write: async (b) => void parts.push(b) },
  );
  const decoder = new MPEGDecoder();
  await decoder.ready;
  const mp3 = Buffer.concat(parts);
  const decoded = decoder.decode(mp3);
  decoder.free();
  return { result, mp3, decoded };
}

describe('the sandbox synthesizer’s MP3', () => {
  it('is silence at 24 kHz and 48 kbit/s, exactly as long and as large as the result says', async () => {
    for (const text of ['Hi.', 'A sentence or two of ordinary length, to be spoken at an ordinary speed. '.repeat(40)]) {
      const { result, mp3, decoded } = await speak(text);
      expect(decoded.errors).toEqual([]);
      expect(decoded.sampleRate).toBe(24_000);
      expect(decoded.samplesDecoded / decoded.sampleRate).toBeCloseTo(result.durationSeconds, 6);
      expect(decoded.channelData.every((channel) => channel.every((sample) => sample === 0))).toBe(true);
      expect(mp3.length).toBe(result.bytes);
      expect(result).toMatchObject({ sampleRate: 24_000, bitrateKbps: 48, format: 'mp3' });
      // 48 kbit/s: 6,000 bytes a second.
      expect(mp3.length / result.durationSeconds).toBeCloseTo(6_000, 6);
    }
  });

  it('is at least one frame for a text of no speech, and many blocks for a long one', async () => {
    expect((await speak('.')).result.durationSeconds).toBeGreaterThan(0);
    const long = await speak('word '.repeat(2_000));
    expect(long.result.durationSeconds).toBeGreaterThan(60);
    expect(long.result.chunks).toBeGreaterThan(1);
    expect(long.decoded.samplesDecoded / 24_000).toBeCloseTo(long.result.durationSeconds, 6);
  });
});
