import { describe, expect, it } from 'vitest';
import { AudioUrlSigner } from './signing.js';

const SECRET = 's'.repeat(32);
const JOB = '0f8fad5b-d9cb-469f-a165-70867728950e';
const NOW = Date.UTC(2026, 3, 10, 12, 0, 0, 500);

function parts(url: string) {
  const u = new URL(url);
  return { path: u.pathname, expires: u.searchParams.get('expires')!, sig: u.searchParams.get('sig')! };
}

describe('AudioUrlSigner', () => {
  const signer = new AudioUrlSigner(SECRET, 3600);

  it('signs /v1/audio/<job>.mp3 with an expiry ttl seconds ahead and a 43-character base64url signature', () => {
    const url = signer.sign('https://api.example.com', JOB, NOW);
    const { path, expires, sig } = parts(url);
    expect(url.startsWith(`https://api.example.com/v1/audio/${JOB}.mp3?expires=`)).toBe(true);
    expect(path).toBe(`/v1/audio/${JOB}.mp3`);
    expect(Number(expires)).toBe(Math.floor(NOW / 1000) + 3600);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same job and second sign alike: a poll does not change the URL within a second.
    expect(signer.sign('https://api.example.com', JOB, NOW + 400)).toBe(url);
  });

  it('verifies its own signature until the expiry, and not after', () => {
    const { expires, sig } = parts(signer.sign('https://api.example.com', JOB, NOW));
    expect(signer.verify(JOB, expires, sig, NOW)).toBe(true);
    expect(signer.verify(JOB, expires, sig, Number(expires) * 1000 - 1)).toBe(true);
    expect(signer.verify(JOB, expires, sig, Number(expires) * 1000)).toBe(false);
  });

  it('refuses another job, a moved expiry, another secret and malformed parameters', () => {
    const { expires, sig } = parts(signer.sign('https://api.example.com', JOB, NOW));
    expect(signer.verify('00000000-0000-4000-8000-000000000000', expires, sig, NOW)).toBe(false);
    expect(signer.verify(JOB, String(Number(expires) + 1), sig, NOW)).toBe(false);
    expect(new AudioUrlSigner('t'.repeat(32), 3600).verify(JOB, expires, sig, NOW)).toBe(false);
    for (const [e, s] of [
      ['', sig],
      ['1e9', sig],
      ['-1', sig],
      ['1234567890123', sig],
      [expires, sig.slice(1)],
      [expires, `${sig.slice(1)}=`],
      [expires, `${sig}A`],
    ]) {
      expect(signer.verify(JOB, e ?? '', s ?? '', NOW)).toBe(false);
    }
  });

  it('signs the three caption URLs /v1/captions/<job>.<format> with the expiry of the audio URL issued at the same instant', () => {
    const timings = signer.signTimings('https://api.example.com', JOB, NOW);
    expect(timings.granularity).toBe('word');
    const audio = parts(signer.sign('https://api.example.com', JOB, NOW));
    const urls = { json: timings.json_url, vtt: timings.vtt_url, srt: timings.srt_url };
    for (const [format, url] of Object.entries(urls)) {
      const { path, expires, sig } = parts(url);
      expect(url.startsWith(`https://api.example.com/v1/captions/${JOB}.${format}?expires=`)).toBe(true);
      expect(path).toBe(`/v1/captions/${JOB}.${format}`);
      expect(expires).toBe(audio.expires);
      expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(signer.verifyCaptions(JOB, format, expires, sig, NOW)).toBe(true);
      expect(signer.verifyCaptions(JOB, format, expires, sig, Number(expires) * 1000)).toBe(false);
    }
    expect(new Set(Object.values(urls).map((u) => parts(u).sig)).size).toBe(3);
  });

  it('binds a caption signature to its format and job: it opens no other format, no audio, no other job', () => {
    const timings = signer.signTimings('https://api.example.com', JOB, NOW);
    const vtt = parts(timings.vtt_url);
    expect(signer.verifyCaptions(JOB, 'srt', vtt.expires, vtt.sig, NOW)).toBe(false);
    expect(signer.verifyCaptions(JOB, 'json', vtt.expires, vtt.sig, NOW)).toBe(false);
    expect(signer.verifyCaptions(JOB, 'mp3', vtt.expires, vtt.sig, NOW)).toBe(false);
    expect(signer.verify(JOB, vtt.expires, vtt.sig, NOW)).toBe(false);
    expect(signer.verifyCaptions('00000000-0000-4000-8000-000000000000', 'vtt', vtt.expires, vtt.sig, NOW)).toBe(false);
    expect(signer.verifyCaptions(JOB, 'vtt', String(Number(vtt.expires) + 1), vtt.sig, NOW)).toBe(false);
    expect(new AudioUrlSigner('t'.repeat(32), 3600).verifyCaptions(JOB, 'vtt', vtt.expires, vtt.sig, NOW)).toBe(false);
    // The audio URL's signature opens no captions.
    const audio = parts(signer.sign('https://api.example.com', JOB, NOW));
    for (const format of ['json', 'vtt', 'srt']) expect(signer.verifyCaptions(JOB, format, audio.expires, audio.sig, NOW)).toBe(false);
    expect(signer.verifyCaptions(JOB, 'vtt', vtt.expires, vtt.sig.slice(1), NOW)).toBe(false);
  });

  it('counts the seconds left, never below zero', () => {
    const { expires } = parts(signer.sign('https://api.example.com', JOB, NOW));
    expect(signer.secondsLeft(expires, NOW)).toBe(3600);
    expect(signer.secondsLeft(expires, NOW + 3_599_000)).toBe(1);
    expect(signer.secondsLeft(expires, NOW + 7_200_000)).toBe(0);
  });
});
