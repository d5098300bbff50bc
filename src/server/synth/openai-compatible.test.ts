import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SynthesisError } from '../ports/index.js';
import { createSynthesizer } from './index.js';
import { OpenAICompatibleEngine, decodeAudio } from './openai-compatible.js';
import { timingsProblems } from '../../contract/captions.js';
import { chunkText } from './chunker.js';
import { ENCODER_DELAY_SAMPLES } from './mp3-encode.js';
import { decodeMp3File, energyOnsets, rms, soundEnd } from '../../../test/helpers/audio.js';
import { synthesizeToFile } from './to-file.js';

const API_KEY = 'sk-upstream-secret-0123456789';
const PCM_RATE = 24000;
/** The test server speaks 60 ms of tone per character at speed 1. */
const SECONDS_PER_CHAR = 0.06;

interface Received {
  path: string;
  authorization?: string;
  body: { model: string; input: string; voice: string; speed: number; response_format: string; language?: string };
}

type Behaviour = (req: Received, n: number, res: ServerResponse) => void | Promise<void>;

let server: Server;
let baseUrl: string;
let received: Received[];
let behaviour: Behaviour;

function tonePcm(seconds: number): Buffer {
  const samples = Math.round(seconds * PCM_RATE);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(10000 * Math.sin((2 * Math.PI * 220 * i) / PCM_RATE)), i * 2);
  return pcm;
}

const speech: Behaviour = (req, _n, res) => {
  res.writeHead(200, { 'content-type': 'audio/pcm' });
  res.end(tonePcm((req.body.input.length * SECONDS_PER_CHAR) / req.body.speed));
};

const failing =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (req, _n, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    // Like a careless server, it echoes the credentials it was sent.
    res.end(JSON.stringify({ error: 'upstream broke', authorization: req.authorization }));
  };

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const r: Received = { path: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
    received.push(r);
    await behaviour(r, received.length, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  received = [];
  behaviour = speech;
});

const engine = (overrides: Partial<ConstructorParameters<typeof OpenAICompatibleEngine>[0]> = {}) =>
  new OpenAICompatibleEngine({
    baseUrls: { kokoro: baseUrl, supertonic: `${baseUrl}/st/` },
    apiKey: API_KEY,
    retries: 2,
    retryBaseDelayMs: 5,
    timeoutMs: 2000,
    ...overrides,
  });

const chunk = { text: 'Hello from upstream.', voice: 'af_heart', language: 'en-US', speed: 1 };

async function providerError(promise: Promise<unknown>): Promise<SynthesisError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SynthesisError);
  return error as SynthesisError;
}

describe('OpenAICompatibleEngine', () => {
  it('asks for raw PCM and returns it with its sample rate', async () => {
    const audio = await engine().synthesize({ ...chunk, speed: 1.25 });
    expect(audio.sampleRate).toBe(PCM_RATE);
    expect(audio.samples.length).toBe(Math.round(((chunk.text.length * SECONDS_PER_CHAR) / 1.25) * PCM_RATE));
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      path: '/v1/audio/speech',
      authorization: `Bearer ${API_KEY}`,
      body: { model: 'tts-1', input: chunk.text, voice: 'af_heart', speed: 1.25, response_format: 'pcm' },
    });
    expect(received[0]!.body.language).toBeUndefined();
  });

  it('sends st_* voices to the supertonic server, with the language', async () => {
    await engine().synthesize({ ...chunk, voice: 'st_m2', language: 'de' });
    expect(received[0]).toMatchObject({ path: '/st/v1/audio/speech', body: { voice: 'st_m2', language: 'de' } });
  });

  it('retries a 500 and succeeds', async () => {
    behaviour = (req, n, res) => (n === 1 ? failing(500)(req, n, res) : speech(req, n, res));
    const audio = await engine().synthesize(chunk);
    expect(audio.samples.length).toBeGreaterThan(0);
    expect(received).toHaveLength(2);
  });

  it('retries 429 (after Retry-After) and 408', async () => {
    behaviour = (req, n, res) => (n === 1 ? failing(429, { 'retry-after': '0' })(req, n, res) : n === 2 ? failing(408)(req, n, res) : speech(req, n, res));
    await engine().synthesize(chunk);
    expect(received).toHaveLength(3);
  });

  it('gives up on a persistent 500 with TTS_PROVIDER_ERROR, never quoting the API key', async () => {
    behaviour = failing(500);
    const error = await providerError(engine().synthesize(chunk));
    expect(error.code).toBe('TTS_PROVIDER_ERROR');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('HTTP 500');
    expect(error.message).not.toContain(API_KEY);
    expect(received).toHaveLength(3);
  });

  it('leaks no part of the key even where the quoted answer is cut short', async () => {
    behaviour = (_req, _n, res) => {
      res.writeHead(502);
      res.end(`${'x'.repeat(190)}${API_KEY}`);
    };
    const error = await providerError(engine().synthesize(chunk));
    expect(error.message).toContain('HTTP 502');
    expect(error.message).not.toContain(API_KEY.slice(0, 6));
  });

  it('does not retry other 4xx answers', async () => {
    behaviour = failing(400);
    const error = await providerError(engine().synthesize(chunk));
    expect(error.code).toBe('TTS_PROVIDER_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).not.toContain(API_KEY);
    expect(received).toHaveLength(1);
  });

  it('times out a slow server, retries, and fails when it stays slow', async () => {
    behaviour = async (req, n, res) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      if (!res.destroyed) speech(req, n, res);
    };
    const error = await providerError(engine({ timeoutMs: 100 }).synthesize(chunk));
    expect(error.code).toBe('TTS_PROVIDER_ERROR');
    expect(error.message).toMatch(/within 100 ms/);
    expect(received).toHaveLength(3);
  });

  it('recovers when only the first answer is too slow', async () => {
    behaviour = async (req, n, res) => {
      if (n === 1) await new Promise((resolve) => setTimeout(resolve, 400));
      if (!res.destroyed) speech(req, n, res);
    };
    const audio = await engine({ timeoutMs: 150 }).synthesize(chunk);
    expect(audio.samples.length).toBeGreaterThan(0);
  });

  it('treats an unreachable server as a provider error', async () => {
    const error = await providerError(engine({ baseUrls: { kokoro: 'http://127.0.0.1:1' } }).synthesize(chunk));
    expect(error.code).toBe('TTS_PROVIDER_ERROR');
    expect(error.message).toMatch(/network error/);
  });

  it('refuses a voice family without a configured server', async () => {
    const error = await providerError(engine({ baseUrls: { kokoro: baseUrl } }).synthesize({ ...chunk, voice: 'st_f1', language: 'en' }));
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(received).toHaveLength(0);
  });

  it('reads a WAV answer from its header', () => {
    const pcm = tonePcm(0.5);
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + pcm.length, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(16000, 24);
    header.writeUInt32LE(32000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36);
    header.writeUInt32LE(pcm.length, 40);
    const audio = decodeAudio(new Uint8Array(Buffer.concat([header, pcm])), PCM_RATE);
    expect(audio.sampleRate).toBe(16000);
    expect(audio.samples.length).toBe(pcm.length / 2);
  });
});

describe('synthesizer with an upstream engine', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'synth-upstream-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const synthesizer = () =>
    createSynthesizer({
      engine: 'openai-compatible',
      threads: 1,
      upstream: { baseUrls: { kokoro: baseUrl }, apiKey: API_KEY, retries: 1, retryBaseDelayMs: 5 },
    });

  it('resamples the server’s PCM into an MP3 of the expected length', { timeout: 120_000 }, async () => {
    const synth = synthesizer();
    try {
      const text = 'First sentence here. '.repeat(40);
      const out = join(dir, 'up.mp3');
      const result = await synthesizeToFile(synth, { text, voice: 'am_echo', language: 'en-US', speed: 1 }, out);
      expect(result.chunks).toBeGreaterThan(1);
      expect(received.length).toBe(result.chunks);
      const decoded = await decodeMp3File(out);
      expect(decoded.sampleRate).toBe(22050);
      expect(Math.abs(decoded.durationSeconds - result.durationSeconds) / result.durationSeconds).toBeLessThanOrEqual(0.02);
      expect(rms(decoded.samples)).toBeGreaterThan(0.1);
      // Tone for every character that reached the server, plus the pauses between chunks.
      const tone = received.reduce((s, r) => s + r.body.input.length * SECONDS_PER_CHAR, 0);
      expect(result.durationSeconds).toBeGreaterThan(tone);
      expect(result.durationSeconds).toBeLessThan(tone + result.chunks * 0.6);
    } finally {
      await synth.close();
    }
  });

  it('spreads each chunk’s sound over its words by character count (approximate word timings)', { timeout: 120_000 }, async () => {
    const synth = synthesizer();
    try {
      // One chunk: the server's tone lasts 60 ms a character, so a word starts 60 ms × its offset into the
      // sound, which starts after the MP3's delay (1105 samples at 22,050 Hz).
      const text = 'Hello brave new world.';
      const one = await synthesizeToFile(synth, { text, voice: 'af_heart', language: 'en-US', speed: 1, timestamps: 'word' }, join(dir, 'one.mp3'));
      expect(timingsProblems(text, { words: one.words!, duration_seconds: one.durationSeconds }, 'en-US')).toEqual([]);
      for (const w of one.words!) expect(Math.abs(w.start - (ENCODER_DELAY_SAMPLES / 22050 + w.utf16_start * SECONDS_PER_CHAR)), w.word).toBeLessThan(0.003);
      expect(one.words!.at(-1)!.end).toBeCloseTo(ENCODER_DELAY_SAMPLES / 22050 + text.length * SECONDS_PER_CHAR, 2);

      // Several chunks: each chunk's first word starts with its tone, after the pause between chunks.
      const long = 'First sentence here. Then a second one follows. '.repeat(25);
      const out = join(dir, 'timed.mp3');
      const result = await synthesizeToFile(synth, { text: long, voice: 'af_heart', language: 'en-US', speed: 1, timestamps: 'word' }, out);
      expect(result.chunks).toBeGreaterThan(1);
      expect(timingsProblems(long, { words: result.words!, duration_seconds: result.durationSeconds }, 'en-US')).toEqual([]);
      const audio = await decodeMp3File(out);
      const onsets = energyOnsets(audio.samples, audio.sampleRate);
      expect(onsets).toHaveLength(result.chunks);
      const firsts = chunkText(long, { locale: 'en-US' }).map((c) => result.words!.find((w) => w.utf16_start === c.start)!);
      for (const [i, w] of firsts.entries()) expect(Math.abs(w.start - onsets[i]!), `chunk ${i}`).toBeLessThan(0.01);
      expect(Math.abs(result.words!.at(-1)!.end - soundEnd(audio.samples, audio.sampleRate))).toBeLessThan(0.01);
    } finally {
      await synth.close();
    }
  });

  it('fails the job with TTS_PROVIDER_ERROR when a chunk keeps failing, leaving no file', { timeout: 120_000 }, async () => {
    behaviour = (req, n, res) => (req.body.input.startsWith('Third') ? failing(503)(req, n, res) : speech(req, n, res));
    const synth = synthesizer();
    try {
      const text = ['First part. '.repeat(40), 'Second part. '.repeat(40), 'Third part. '.repeat(40)].join('');
      const jobDir = await mkdtemp(join(dir, 'fail-'));
      const error = await providerError(synthesizeToFile(synth, { text, voice: 'af_heart', language: 'en-US', speed: 1 }, join(jobDir, 'x.mp3')));
      expect(error.code).toBe('TTS_PROVIDER_ERROR');
      expect(error.message).not.toContain(API_KEY);
      expect(await readdir(jobDir)).toEqual([]);
    } finally {
      await synth.close();
    }
  });
});
