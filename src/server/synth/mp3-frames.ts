/** Facts about an MPEG audio frame header, enough to walk a CBR or VBR stream frame by frame. */
export interface FrameHeader {
  /** Bytes in the frame, header included. */
  length: number;
  samples: number;
  sampleRate: number;
  bitrateKbps: number;
}

const LAYER3_KBPS_MPEG1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const LAYER3_KBPS_MPEG2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000], // MPEG-1
  2: [22050, 24000, 16000], // MPEG-2
  0: [11025, 12000, 8000], // MPEG-2.5
};

/** Parses a Layer III header at `offset`; undefined when the bytes there are not one. */
export function parseFrameHeader(bytes: Uint8Array, offset: number): FrameHeader | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const b1 = bytes[offset + 1]!;
  const b2 = bytes[offset + 2]!;
  if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 0b11;
  const layer = (b1 >> 1) & 0b11;
  if (version === 1 || layer !== 0b01) return undefined;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 0b11;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const mpeg1 = version === 3;
  const bitrateKbps = (mpeg1 ? LAYER3_KBPS_MPEG1 : LAYER3_KBPS_MPEG2)[bitrateIndex]!;
  const sampleRate = SAMPLE_RATES[version]![rateIndex]!;
  const samples = mpeg1 ? 1152 : 576;
  const padding = (b2 >> 1) & 1;
  const length = Math.floor(((samples / 8) * bitrateKbps * 1000) / sampleRate) + padding;
  return { length, samples, sampleRate, bitrateKbps };
}

/** Counts the frames of a stream that is nothing but Layer III frames (what LAME writes without a tag). */
export function countFrames(bytes: Uint8Array): { frames: number; samples: number } {
  let offset = 0;
  let frames = 0;
  let samples = 0;
  while (offset < bytes.length) {
    const header = parseFrameHeader(bytes, offset);
    if (!header) throw new Error(`No MPEG frame header at byte ${offset} of ${bytes.length}`);
    offset += header.length;
    frames++;
    samples += header.samples;
  }
  if (offset !== bytes.length) throw new Error(`Last MPEG frame overruns the stream by ${offset - bytes.length} bytes`);
  return { frames, samples };
}
