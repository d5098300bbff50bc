/**
 * The native engine: the system's eSpeak NG (libespeak-ng.so.1) and LAME (libmp3lame.so.0), called
 * through koffi (an optional peer dependency of @agent-tts/server). Debian: `apt-get install espeak-ng lame`.
 *
 * libespeak-ng keeps its state in globals and is not thread-safe, so each pool thread loads a copy of
 * its own (the library copied to a temporary file and opened from there: a file the process has not
 * opened yet is a separate instance with separate globals; the file is removed once mapped). LAME keeps
 * its state in the context it returns and is shared.
 */
import { copyFileSync, existsSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { wordMarks } from './espeak-events.js';
import type { EspeakVoiceSettings } from './espeak-voices.js';
import { escapeForSsml } from './espeak-wasm.js';
import { PoolClosingError, poolClosing } from './native-guard.js';
import type { Mp3Encoder } from './mp3-encode.js';
import type { PcmAudio } from './pcm.js';

type Koffi = typeof import('koffi');

/** The libraries a native engine runs on, found at start-up. */
export interface NativeLibraries {
  espeak: string;
  lame: string;
  /** e.g. "eSpeak NG 1.51, LAME 3.100". */
  version: string;
}

const ESPEAK_FILE = 'libespeak-ng.so.1';
const LAME_FILE = 'libmp3lame.so.0';

function libraryDirectories(): string[] {
  const multiarch = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu', arm: 'arm-linux-gnueabihf' }[process.arch as string];
  return [...(multiarch ? [`/usr/lib/${multiarch}`] : []), '/usr/lib64', '/usr/lib', '/usr/local/lib'];
}

function findLibrary(file: string, directories: readonly string[]): string | undefined {
  return directories.map((dir) => join(dir, file)).find((path) => existsSync(path));
}

function loadKoffi(): Koffi {
  return createRequire(import.meta.url)('koffi') as Koffi;
}

/**
 * The native engine's libraries, or why it cannot run here (a sentence for the operator: what is
 * missing and how to install it).
 */
export function findNativeLibraries(directories: readonly string[] = libraryDirectories()): NativeLibraries | { missing: string } {
  const install = 'install it with `apt-get install espeak-ng lame` (Debian, Ubuntu)';
  if (process.platform !== 'linux') return { missing: `the native engine runs on Linux only (this is ${process.platform})` };
  let koffi: Koffi;
  try {
    koffi = loadKoffi();
  } catch {
    return {
      missing:
        'koffi, through which it calls the system libraries, is not installed (it is an optional part of @agent-tts/server); ' +
        'install it beside it: npm install koffi@"^3.3.4" (with -g for a global install)',
    };
  }
  const espeak = findLibrary(ESPEAK_FILE, directories);
  const lame = findLibrary(LAME_FILE, directories);
  if (!espeak || !lame) {
    const absent = [!espeak && `${ESPEAK_FILE} (eSpeak NG)`, !lame && `${LAME_FILE} (LAME)`].filter(Boolean).join(' and ');
    return { missing: `${absent} not found in ${directories.join(', ')}: ${install}` };
  }
  try {
    const espeakInfo = koffi.load(espeak).func('const char *espeak_Info(void *path_data)');
    const lameVersion = koffi.load(lame).func('const char *get_lame_version()');
    return { espeak, lame, version: `eSpeak NG ${String(espeakInfo(null))}, LAME ${String(lameVersion())}` };
  } catch (error) {
    return { missing: `${espeak} or ${lame} cannot be loaded (${error instanceof Error ? error.message : String(error)}): ${install}` };
  }
}

// libespeak-ng's constants (speak_lib.h).
const AUDIO_OUTPUT_SYNCHRONOUS = 2;
const POS_CHARACTER = 1;
const espeakCHARS_UTF8 = 1;
const espeakSSML = 0x10;
const espeakRATE = 1;
const espeakPITCH = 3;
const espeakRANGE = 4;
const espeakEVENT_LIST_TERMINATED = 0;
const espeakEVENT_WORD = 1;
/** Milliseconds of audio per synthesis callback: large blocks, few calls. */
const BUFFER_MS = 2000;

interface WordEvent {
  text_position: number;
  word_length: number;
  audio_position: number;
}

type NativeSynthesize = (text: string, settings: EspeakVoiceSettings, options?: { wordEvents?: boolean }) => PcmAudio & { samples: Int16Array };

/** This thread's eSpeak NG: a copy of the library of its own, initialized for synchronous synthesis. */
export function nativeEspeak(libraryPath: string, guard?: SharedArrayBuffer): NativeSynthesize {
  const koffi = loadKoffi();
  const copy = join(tmpdir(), `agent-tts-espeak-${process.pid}-${threadId}-${Date.now()}.so`);
  copyFileSync(libraryPath, copy);
  let lib: ReturnType<Koffi['load']>;
  try {
    lib = koffi.load(copy);
  } finally {
    unlinkSync(copy);
  }
  const EspeakEvent = koffi.struct({
    type: 'int',
    unique_identifier: 'uint',
    text_position: 'int',
    length: 'int',
    audio_position: 'int',
    sample: 'int',
    user_data: 'void *',
    id: 'uint64',
  });
  const eventSize = koffi.sizeof(EspeakEvent);
  const SynthCallback = koffi.proto('int', ['int16_t *', 'int', 'void *']);
  const initialize = lib.func('int espeak_Initialize(int output, int buflength, const char *path, int options)');
  const setCallback = lib.func('espeak_SetSynthCallback', 'void', [koffi.pointer(SynthCallback)]);
  const setVoice = lib.func('int espeak_SetVoiceByName(const char *name)');
  const setParameter = lib.func('int espeak_SetParameter(int parameter, int value, int relative)');
  const synth = lib.func(
    'int espeak_Synth(const char *text, size_t size, unsigned int position, int position_type, unsigned int end_position, unsigned int flags, void *unique_identifier, void *user_data)',
  );
  const sampleRate = initialize(AUDIO_OUTPUT_SYNCHRONOUS, BUFFER_MS, null, 0) as number;
  if (sampleRate <= 0) throw new Error(`eSpeak NG (${libraryPath}) could not start: its data was not found`);

  let blocks: Int16Array[] = [];
  let events: WordEvent[] | undefined;
  const callback = koffi.register((wav: unknown, count: number, blockEvents: unknown) => {
    // 1 asks eSpeak NG to stop: the pool is closing and waits for this thread to leave native code.
    if (poolClosing(guard)) return 1;
    if (wav && count > 0) blocks.push(new Int16Array(koffi.view(wav, count * 2).slice(0)));
    if (events && blockEvents) {
      for (let i = 0; ; i++) {
        const event = koffi.decode(blockEvents, i * eventSize, EspeakEvent) as { type: number; text_position: number; length: number; audio_position: number };
        if (event.type === espeakEVENT_LIST_TERMINATED) break;
        if (event.type === espeakEVENT_WORD)
          events.push({ text_position: event.text_position, word_length: event.length, audio_position: event.audio_position });
      }
    }
    return 0;
  }, koffi.pointer(SynthCallback));
  setCallback(callback);

  return (text, settings, options = {}) => {
    const status = setVoice(settings.name) as number;
    if (status !== 0) throw new Error(`eSpeak NG has no voice "${settings.name}" (status ${status})`);
    setParameter(espeakRATE, settings.rate, 0);
    setParameter(espeakPITCH, settings.pitch, 0);
    setParameter(espeakRANGE, settings.range, 0);
    blocks = [];
    events = options.wordEvents ? [] : undefined;
    const escaped = escapeForSsml(text);
    const result = synth(escaped, Buffer.byteLength(escaped) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8 | espeakSSML, null, null) as number;
    if (poolClosing(guard)) throw new PoolClosingError();
    if (result !== 0) throw new Error(`eSpeak NG synthesis failed (status ${result})`);
    let total = 0;
    for (const block of blocks) total += block.length;
    const samples = new Int16Array(total);
    let offset = 0;
    for (const block of blocks) {
      samples.set(block, offset);
      offset += block.length;
    }
    blocks = [];
    const found = events;
    events = undefined;
    return found ? { samples, sampleRate, marks: wordMarks(found, text) } : { samples, sampleRate };
  };
}

// LAME's constants (lame.h).
const MONO = 3;
const vbr_off = 0;

/**
 * LAME's quality setting (0 best and slowest, 9 worst and fastest) of the native engine. LAME's default, 3
 * (the setting wasm-media-encoders gives it), spends most of a long job's CPU time in its psychoacoustic
 * noise shaping: at 7 the encoder takes about half the CPU time for the same format, frame count, bitrate
 * and duration (different bytes), a cost an operator does not hear at 48 kbit/s mono speech; with it a
 * 500,000-character job fits in a minute on 2 cores (docs/benchmarks.md, "Long job").
 */
export const NATIVE_LAME_QUALITY = 7;

/**
 * LAME from the system's libmp3lame with the settings wasm-media-encoders gives it (CBR, mono, no
 * VBR/Info tag) and `quality` (at 3, LAME's default, the same bytes as LAME in WebAssembly for the same
 * samples, about 1.5× faster; at NATIVE_LAME_QUALITY, about 3× faster).
 */
export function nativeLame(libraryPath: string, quality: number = NATIVE_LAME_QUALITY): Mp3Encoder {
  const lib = loadKoffi().load(libraryPath);
  const init = lib.func('void *lame_init()');
  const close = lib.func('int lame_close(void *gfp)');
  const setter = (name: string) => lib.func(`int ${name}(void *gfp, int value)`);
  const setInRate = setter('lame_set_in_samplerate');
  const setOutRate = setter('lame_set_out_samplerate');
  const setChannels = setter('lame_set_num_channels');
  const setMode = setter('lame_set_mode');
  const setBitrate = setter('lame_set_brate');
  const setVbr = setter('lame_set_VBR');
  const setTag = setter('lame_set_bWriteVbrTag');
  const setQuality = setter('lame_set_quality');
  const initParams = lib.func('int lame_init_params(void *gfp)');
  const encodeFloat = lib.func(
    'int lame_encode_buffer_ieee_float(void *gfp, const float *left, const float *right, int samples, _Out_ uint8_t *mp3, int size)',
  );
  const flush = lib.func('int lame_encode_flush(void *gfp, _Out_ uint8_t *mp3, int size)');
  let context: unknown;
  let out = new Uint8Array(0);
  const room = (samples: number) => {
    // lame.h: worst case 1.25 × samples + 7200 bytes.
    const needed = Math.ceil(samples * 1.25) + 7200;
    if (out.length < needed) out = new Uint8Array(needed);
  };
  const done = () => {
    if (context) close(context);
    context = undefined;
  };
  return {
    configure(options) {
      done();
      context = init();
      if (!context) throw new Error('LAME could not allocate an encoder');
      setInRate(context, options.sampleRate);
      setOutRate(context, options.outputSampleRate);
      setChannels(context, options.channels);
      setMode(context, MONO);
      setBitrate(context, options.bitrate);
      setVbr(context, vbr_off);
      setTag(context, 0);
      setQuality(context, quality);
      const status = initParams(context) as number;
      if (status < 0) throw new Error(`LAME refused its settings (status ${status})`);
    },
    encode([samples]) {
      room(samples!.length);
      const bytes = encodeFloat(context, samples, samples, samples!.length, out, out.length) as number;
      if (bytes < 0) throw new Error(`LAME failed to encode (status ${bytes})`);
      return out.subarray(0, bytes);
    },
    finalize() {
      room(0);
      const bytes = flush(context, out, out.length) as number;
      done();
      if (bytes < 0) throw new Error(`LAME failed to flush (status ${bytes})`);
      return out.subarray(0, bytes);
    },
  };
}
