import { describe, expect, it } from 'vitest';
import { RequestRefusedError } from './errors.js';
import { SpeechRequests } from './speech-request.js';

const CATALOG = { ids: ['af_heart', 'ff_claire', 'st_m3', 'st_f1'], url: 'http://voices.example.com/api/v1/voices' };

function refusal(requests: SpeechRequests, voice: string): RequestRefusedError {
  try {
    requests.resolve({ text: 'a', voice });
  } catch (error) {
    if (error instanceof RequestRefusedError) return error;
    throw error;
  }
  throw new Error(`${voice} was accepted`);
}

describe('SpeechRequests', () => {
  const both = new SpeechRequests(new Set(['kokoro', 'supertonic']), CATALOG);

  it('applies the defaults: af_heart, speed 1.2, the voice’s language; en for st_* voices; Kokoro ignores `language`', () => {
    expect(both.resolve({ text: 'hello' })).toEqual({ text: 'hello', voice: 'af_heart', language: 'en-US', speed: 1.2 });
    expect(both.resolve({ text: 'a', voice: 'st_m3' })).toEqual({ text: 'a', voice: 'st_m3', language: 'en', speed: 1.2 });
    expect(both.resolve({ text: 'a', voice: 'st_m3', language: 'ko', speed: 0.8 })).toEqual({ text: 'a', voice: 'st_m3', language: 'ko', speed: 0.8 });
    expect(both.resolve({ text: 'a', voice: 'ff_claire', language: 'de' }).language).toBe('fr');
  });

  it("keeps a request for word timings; `timestamps: 'none'` is the same request as no field", () => {
    expect(both.resolve({ text: 'a', timestamps: 'word' })).toEqual({ text: 'a', voice: 'af_heart', language: 'en-US', speed: 1.2, timestamps: 'word' });
    expect(both.resolve({ text: 'a', timestamps: 'none' })).toStrictEqual(both.resolve({ text: 'a' }));
    expect(both.resolve({ text: 'a', timestamps: 'none' })).not.toHaveProperty('timestamps');
  });

  it('speaks an id of the pattern that the catalog does not list in the closest listed voice of its family, gender and language (§2.3)', () => {
    const catalog = { ...CATALOG, ids: ['af_heart', 'af_bella', 'am_michael', 'ff_siwis', 'st_m3', 'st_f1'] };
    const requests = new SpeechRequests(new Set(['kokoro', 'supertonic']), catalog);
    // A typo of af_bella: the closest American female voice.
    expect(requests.resolve({ text: 'a', voice: 'af_bela' })).toEqual({ text: 'a', voice: 'af_bella', language: 'en-US', speed: 1.2 });
    // Never a voice of another gender or language, however close its id.
    expect(requests.resolve({ text: 'a', voice: 'am_bella' }).voice).toBe('am_michael');
    expect(requests.resolve({ text: 'a', voice: 'ff_heart' })).toMatchObject({ voice: 'ff_siwis', language: 'fr' });
    // A Supertonic id keeps the language the request names.
    expect(requests.resolve({ text: 'a', voice: 'st_m1', language: 'ko' })).toEqual({ text: 'a', voice: 'st_m3', language: 'ko', speed: 1.2 });
    // No listed voice of that language and gender: refused, naming the catalog.
    const error = refusal(requests, 'jf_nobody');
    expect(error.message).toMatch(/^voice "jf_nobody" is not offered by this deployment/);
  });

  it('refuses every unlisted id when the operator asks for it (VOICES_UNLISTED=refuse), naming the catalog', () => {
    const refusing = new SpeechRequests(new Set(['kokoro', 'supertonic']), CATALOG, 'refuse');
    expect(both.resolve({ text: 'a', voice: 'af_hart' }).voice).toBe('af_heart');
    const error = refusal(refusing, 'af_hart');
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^voice "af_hart" is not offered by this deployment: it is not in the deployment's voice catalog/);
    expect(error.message).toContain(CATALOG.url);
  });

  it('refuses a voice of a family without an engine, even when listed', () => {
    const kokoroOnly = new SpeechRequests(new Set(['kokoro']), CATALOG);
    const error = refusal(kokoroOnly, 'st_f1');
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^Voice "st_f1" is not available on this deployment: no speech server is configured for its supertonic voices\./);
    expect(kokoroOnly.resolve({ text: 'a', voice: 'af_heart' }).voice).toBe('af_heart');
  });
});
