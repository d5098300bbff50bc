import type { EspeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import type { EspeakVoiceSettings } from './espeak-voices.js';

let instance: Promise<EspeakNGWorker> | undefined;

/** One eSpeak NG per thread, created on first use and kept warm: start-up reads 24 MB of voice data. */
function espeakInstance(): Promise<EspeakNGWorker> {
  instance ??= import('@echogarden/espeak-ng-emscripten').then(async ({ default: initialize }) => {
    const module = await initialize();
    return new module.eSpeakNGWorker();
  });
  return instance;
}

/**
 * This eSpeak build always parses its input as SSML: markup in user text would be obeyed (a `<break>`
 * of minutes, say), so it is escaped. Control characters other than line breaks are dropped.
 */
function escapeForSsml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern is the control characters (other than line breaks) to take out of user text
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
  );
}

export async function espeakSynthesize(text: string, settings: EspeakVoiceSettings): Promise<{ samples: Int16Array; sampleRate: number }> {
  const espeak = await espeakInstance();
  const status = espeak.set_voice(settings.name);
  if (status !== 0) throw new Error(`eSpeak NG has no voice "${settings.name}" (status ${status})`);
  espeak.set_rate(settings.rate);
  espeak.set_pitch(settings.pitch);
  espeak.set_range(settings.range);
  const blocks: Int16Array[] = [];
  let total = 0;
  espeak.synthesize(escapeForSsml(text), (samples) => {
    if (samples && samples.length > 0) {
      blocks.push(samples);
      total += samples.length;
    }
    return 0;
  });
  const samples = new Int16Array(total);
  let offset = 0;
  for (const block of blocks) {
    samples.set(block, offset);
    offset += block.length;
  }
  return { samples, sampleRate: espeak.get_samplerate() };
}
