/** MP3 encoding speed of wasm-media-encoders (LAME) on real speech, as the pipeline encodes it. */
import { chunkText } from '../src/synth/chunker.js';
import { espeakSettings } from '../src/synth/espeak-voices.js';
import { espeakSynthesize } from '../src/synth/espeak-wasm.js';
import { encodeChunk, type Mp3Bitrate } from '../src/synth/mp3-encode.js';
import { cpuSeconds, englishProse, load, printHeader, round, writeResults } from './synth-common.js';

const CHARS = Number(process.env.SYNTH_BENCH_CHARS ?? 15_000);
printHeader('MP3 encoding speed');
const loadBefore = load();

const text = englishProse(CHARS);
const pcm: { samples: Int16Array; sampleRate: number }[] = [];
for (const chunk of chunkText(text, { locale: 'en-US' })) pcm.push(await espeakSynthesize(chunk.text, espeakSettings('am_michael', 'en-US', 1)));
const audioSeconds = pcm.reduce((s, p) => s + p.samples.length / p.sampleRate, 0);
console.log(`speech to encode: ${round(audioSeconds, 1)} s in ${pcm.length} chunks`);

async function encodeAll(bitrateKbps: Mp3Bitrate) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let bytes = 0;
  let decodedSamples = 0;
  for (const p of pcm) {
    const out = await encodeChunk({ samples: p.samples, sampleRate: p.sampleRate, outputRate: 22050, pauseSamples: 8000, bitrateKbps });
    bytes += out.mp3.length;
    decodedSamples += out.decodedSamples;
  }
  const wall = (performance.now() - started) / 1000;
  const encoded = decodedSamples / 22050;
  return { wall, cpu: cpuSeconds(cpu), encoded, bytes };
}

await encodeAll(48); // first pass compiles and optimizes the encoder
const figures: Record<string, unknown> = { speech_seconds: round(audioSeconds, 1), chunks: pcm.length };
for (const bitrate of [48, 64] as const) {
  const r = await encodeAll(bitrate);
  figures[`kbps_${bitrate}_x_realtime_one_thread`] = round(r.encoded / r.wall, 1);
  figures[`kbps_${bitrate}_audio_seconds_per_cpu_second`] = round(r.encoded / r.cpu, 1);
  figures[`kbps_${bitrate}_bytes_per_audio_second`] = Math.round(r.bytes / r.encoded);
  console.log(`${bitrate} kbit/s: ${round(r.encoded / r.wall, 1)}x real time`);
}
figures.load_average_before_after = `${loadBefore} / ${load()}`;
console.table(figures);
await writeResults('mp3', 'MP3 encoding speed (wasm-media-encoders, LAME)', figures, [
  'One thread, 22,050 Hz mono CBR, each chunk a stream of its own with silence trimmed and a pause appended, exactly as the pipeline does on its worker threads.',
  'Input: eSpeak NG speech of ordinary English prose (voice am_michael), synthesized before timing starts.',
  'The load average is of the whole machine, shared with other work while the figures were taken.',
]);
