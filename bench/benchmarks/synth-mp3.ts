import { chunkText, espeakSettings, espeakSynthesize, encodeChunk, type Mp3Bitrate } from '@agent-tts/server/synth';
import { cpuSecondsSince } from '../harness/proc.js';
import { figuresTable, type BenchContext, type BenchmarkOutput } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { proseOfLength } from '../harness/texts.js';

const VOICE = 'am_michael';
const OUTPUT_RATE = 22050;
const BITRATES: Mp3Bitrate[] = [48, 64];

/**
 * MP3 encoding speed of wasm-media-encoders (LAME) on one thread, on real speech, encoded exactly as the
 * pipeline's worker threads encode it: each chunk a stream of its own, silence trimmed, a pause appended.
 */
export async function runSynthMp3(ctx: BenchContext): Promise<BenchmarkOutput> {
  const chars = ctx.quick ? 2_000 : 15_000;
  const settings = espeakSettings(VOICE, 'en-US', 1);
  // The speech is synthesized before any timing starts.
  const pcm: { samples: Int16Array; sampleRate: number }[] = [];
  for (const chunk of chunkText(proseOfLength(chars), { locale: 'en-US' })) pcm.push(await espeakSynthesize(chunk.text, settings));
  const speechS = pcm.reduce((s, p) => s + p.samples.length / p.sampleRate, 0);
  ctx.log(`synth-mp3: ${round(speechS, 1)} s of speech in ${pcm.length} chunks`);

  const encodeAll = async (bitrateKbps: Mp3Bitrate) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    let bytes = 0;
    let samples = 0;
    for (const p of pcm) {
      const out = await encodeChunk({ samples: p.samples, sampleRate: p.sampleRate, outputRate: OUTPUT_RATE, pauseSamples: 8000, bitrateKbps });
      bytes += out.mp3.length;
      samples += out.decodedSamples;
    }
    const encodedS = samples / OUTPUT_RATE;
    return {
      kbps: bitrateKbps,
      encoded_s: round(encodedS, 1),
      x_realtime: round(encodedS / ((performance.now() - started) / 1000), 1),
      audio_s_per_cpu_s: round(encodedS / cpuSecondsSince(cpu), 1),
      bytes_per_audio_s: Math.round(bytes / encodedS),
    };
  };
  await encodeAll(BITRATES[0]!); // the first pass compiles and optimizes the encoder
  const runs = [];
  for (const kbps of BITRATES) runs.push(await encodeAll(kbps));
  ctx.log(`  ${runs.map((r) => `${r.kbps} kbit/s ${r.x_realtime}x real time`).join(', ')}`);

  const figures: Record<string, string | number> = { characters: chars, 'speech to encode (s)': round(speechS, 1), chunks: pcm.length };
  for (const r of runs) {
    figures[`${r.kbps} kbit/s: audio s per wall s`] = r.x_realtime;
    figures[`${r.kbps} kbit/s: audio s per CPU s`] = r.audio_s_per_cpu_s;
    figures[`${r.kbps} kbit/s: bytes per audio s`] = r.bytes_per_audio_s;
  }
  const md = [
    `One thread, ${OUTPUT_RATE.toLocaleString('en')} Hz mono CBR, each chunk a stream of its own with silence trimmed and a pause appended, as the pipeline encodes on its worker threads. ` +
      `Input: eSpeak NG speech (voice ${VOICE}) of ${chars.toLocaleString('en')} characters of prose, synthesized before timing starts; one untimed pass first compiles the encoder.`,
    '',
    figuresTable(figures),
  ];
  return {
    name: 'synth-mp3',
    title: 'MP3 encoding speed (wasm-media-encoders, LAME)',
    data: { chars, voice: VOICE, speech_s: round(speechS, 1), chunks: pcm.length, output_rate_hz: OUTPUT_RATE, runs },
    markdown: md.join('\n'),
    targets: [],
  };
}
