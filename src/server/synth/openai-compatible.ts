import { setTimeout as sleep } from 'node:timers/promises';
import { parseVoice } from '@agent-tts/contract/voices.js';
import type { SpeechChunk, SpeechEngine } from './engine.js';
import { SynthesisError } from '../ports/index.js';
import type { PcmAudio } from './pcm.js';
import type { UpstreamOptions } from './types.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_RETRIES = 3;
const DEFAULT_PCM_RATE = 24_000;
const DEFAULT_BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/** A failed attempt: why, and whether another attempt may succeed. */
interface AttemptFailure {
  reason: string;
  transient: boolean;
  retryAfterMs?: number;
}

/**
 * Any server speaking OpenAI's `POST /v1/audio/speech` (Kokoro-FastAPI, `supertonic serve`, …), one base
 * URL per voice family. Each chunk is requested with `response_format: "pcm"`: raw 16-bit little-endian
 * mono at `pcmSampleRate` (24 kHz by default, as Kokoro-FastAPI sends). A server that answers with a WAV
 * file instead is read from its header. For st_* voices the body also carries `language` (the §4.5 code);
 * servers that only know OpenAI's fields ignore it.
 *
 * Network errors, timeouts, 408, 429 and 5xx are retried with exponential backoff and full jitter
 * (honouring Retry-After); other answers fail at once. Failures reject with TTS_PROVIDER_ERROR.
 */
export class OpenAICompatibleEngine implements SpeechEngine {
  readonly kind = 'openai-compatible';
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly pcmSampleRate: number;
  private readonly baseDelayMs: number;

  constructor(private readonly options: UpstreamOptions) {
    this.model = options.model ?? 'tts-1';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = Math.max(0, options.retries ?? DEFAULT_RETRIES);
    this.pcmSampleRate = options.pcmSampleRate ?? DEFAULT_PCM_RATE;
    this.baseDelayMs = options.retryBaseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  }

  async synthesize(chunk: SpeechChunk, signal?: AbortSignal): Promise<PcmAudio> {
    const family = parseVoice(chunk.voice)?.family;
    const baseUrl = family && this.options.baseUrls[family];
    if (!family || !baseUrl) {
      throw new SynthesisError('INTERNAL_ERROR', `No speech server is configured for voice "${chunk.voice}"`, { retryable: false });
    }
    const url = `${baseUrl.replace(/\/+$/, '')}/v1/audio/speech`;
    const body = JSON.stringify({
      model: this.model,
      input: chunk.text,
      voice: chunk.voice,
      speed: chunk.speed,
      response_format: 'pcm',
      ...(family === 'supertonic' ? { language: chunk.language } : {}),
    });

    for (let attempts = 1; ; attempts++) {
      const outcome = await this.attempt(url, body, signal);
      if (!('reason' in outcome)) return outcome;
      if (attempts > this.retries || !outcome.transient) {
        throw new SynthesisError(
          'TTS_PROVIDER_ERROR',
          `Speech server for ${family} voices failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${outcome.reason}`,
          { retryable: outcome.transient },
        );
      }
      await sleep(this.backoffMs(attempts, outcome.retryAfterMs), undefined, { signal });
    }
  }

  private async attempt(url: string, body: string, signal?: AbortSignal): Promise<PcmAudio | AttemptFailure> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'audio/pcm, audio/wav' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!response.ok) {
        // Redact before shortening, so that no part of a key cut at the end survives either.
        const detail = this.redact(await response.text().catch(() => ''))
          .replace(/\s+/g, ' ')
          .trim()
          .slice(0, 200);
        const status = response.status;
        return {
          reason: `HTTP ${status}${detail ? ` (${detail})` : ''}`,
          transient: status === 408 || status === 429 || status >= 500,
          retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
        };
      }
      return decodeAudio(new Uint8Array(await response.arrayBuffer()), this.pcmSampleRate);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) return { reason: `no complete answer within ${this.timeoutMs} ms`, transient: true };
      if (error instanceof SynthesisError) return { reason: error.message, transient: false };
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return { reason: `network error (${this.redact(`${error instanceof Error ? error.message : String(error)}${cause}`)})`, transient: true };
    }
  }

  private backoffMs(attempt: number, retryAfter?: number): number {
    const exponential = Math.min(MAX_DELAY_MS, this.baseDelayMs * 2 ** (attempt - 1));
    const jittered = Math.random() * exponential;
    return Math.min(MAX_DELAY_MS, Math.max(jittered, retryAfter ?? 0));
  }

  /** Text from upstream may quote the request (some servers echo headers): the key never leaves in it. */
  private redact(message: string): string {
    const key = this.options.apiKey;
    return key ? message.split(key).join('[redacted]') : message;
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Raw 16-bit little-endian mono PCM, or a WAV file (16-bit PCM, mono) when the server sends one. */
export function decodeAudio(bytes: Uint8Array, pcmSampleRate: number): PcmAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let sampleRate = pcmSampleRate;
  let start = 0;
  let end = bytes.length;
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') {
    let offset = 12;
    let format: { channels: number; rate: number; bits: number; tag: number } | undefined;
    while (offset + 8 <= bytes.length) {
      const id = ascii(bytes, offset, 4);
      const size = view.getUint32(offset + 4, true);
      if (id === 'fmt ') {
        format = {
          tag: view.getUint16(offset + 8, true),
          channels: view.getUint16(offset + 10, true),
          rate: view.getUint32(offset + 12, true),
          bits: view.getUint16(offset + 22, true),
        };
      } else if (id === 'data') {
        start = offset + 8;
        // Streaming servers write 0 or 0xFFFFFFFF as the data size: the data then runs to the end.
        end = size === 0 || size === 0xffffffff ? bytes.length : Math.min(bytes.length, start + size);
        break;
      }
      offset += 8 + size + (size % 2);
    }
    if (format?.tag !== 1 || format.bits !== 16 || format.channels !== 1 || start === 0) {
      throw new SynthesisError('TTS_PROVIDER_ERROR', 'Speech server sent a WAV file that is not 16-bit mono PCM', { retryable: false });
    }
    sampleRate = format.rate;
  }
  const count = Math.floor((end - start) / 2);
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i++) samples[i] = view.getInt16(start + i * 2, true);
  return { samples, sampleRate };
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}
