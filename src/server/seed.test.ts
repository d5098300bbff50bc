import { MPEGDecoder } from 'mpg123-decoder';
import { describe, expect, it } from 'vitest';
import { silentMp3 } from './seed.js';

describe('silentMp3 (the audio of the seeded job behind the expired audio URL)', () => {
  it('is one second of MPEG-1 Layer III that a decoder plays as silence', async () => {
    const bytes = silentMp3();
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfb]));
    const decoder = new MPEGDecoder();
    await decoder.ready;
    const { channelData, samplesDecoded, sampleRate, errors } = decoder.decode(new Uint8Array(bytes));
    decoder.free();
    expect(errors).toEqual([]);
    expect(sampleRate).toBe(44_100);
    // 39 frames of 1,152 samples; the decoder holds the last frame back as its look-ahead.
    expect(samplesDecoded / sampleRate).toBeGreaterThan(0.95);
    expect(samplesDecoded / sampleRate).toBeLessThan(1.1);
    expect(channelData[0]!.every((s) => s === 0)).toBe(true);
  });
});
