import type { EspeakEvent, EspeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import { wordMarks } from './espeak-events.js';
import type { EspeakVoiceSettings } from './espeak-voices.js';
import type { PcmAudio } from './pcm.js';

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
export function escapeForSsml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern is the control characters (other than line breaks) to take out of user text
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
  );
}

/**
 * Speaks `text` with eSpeak NG. With `wordEvents`, the result carries eSpeak's word events as marks
 * (offsets into `text`, before escaping); without, events are not looked at.
 */
export async function espeakSynthesize(
  text: string,
  settings: EspeakVoiceSettings,
  options: { wordEvents?: boolean } = {},
): Promise<PcmAudio & { samples: Int16Array }> {
  const espeak = await espeakInstance();
  const status = espeak.set_voice(settings.name);
  if (status !== 0) throw new Error(`eSpeak NG has no voice "${settings.name}" (status ${status})`);
  espeak.set_rate(settings.rate);
  espeak.set_pitch(settings.pitch);
  espeak.set_range(settings.range);
  const blocks: Int16Array[] = [];
  let total = 0;
  const events: EspeakEvent[] | undefined = options.wordEvents ? [] : undefined;
  espeak.synthesize(escapeForSsml(text), (samples, blockEvents) => {
    if (samples && samples.length > 0) {
      blocks.push(samples);
      total += samples.length;
    }
    if (events && blockEvents) for (const event of blockEvents) if (event.type === 'word') events.push(event);
    return 0;
  });
  const samples = new Int16Array(total);
  let offset = 0;
  for (const block of blocks) {
    samples.set(block, offset);
    offset += block.length;
  }
  const sampleRate = espeak.get_samplerate();
  return events ? { samples, sampleRate, marks: wordMarks(events, text) } : { samples, sampleRate };
}
