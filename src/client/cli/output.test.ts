import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output, displayKey } from './output.js';

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { streams: { stdout, stderr }, text: () => ({ out, err }) };
}

const KEY = 'tts_0a1b2c3d_00112233445566778899aabbccddeeff0011223344556677';

describe('Output', () => {
  it('cuts anything shaped like a key to tts_<public_id> on both streams and in JSON', () => {
    const io = capture();
    const output = new Output(io.streams);
    output.out(`key=${KEY}`);
    output.err(`Bearer ${KEY}.`);
    output.emitJson({ nested: { key: KEY } });
    const { out, err } = io.text();
    expect(out + err).not.toContain('00112233445566778899');
    expect(out).toContain('key=tts_0a1b2c3d\n');
    expect(err).toBe('Bearer tts_0a1b2c3d.\n');
    expect(JSON.parse(out.slice(out.indexOf('{')))).toEqual({ nested: { key: 'tts_0a1b2c3d' } });
  });

  it('hides a registered secret even when it does not look like a key', () => {
    const io = capture();
    const output = new Output(io.streams);
    output.addSecret('plain-secret-value');
    output.err('got plain-secret-value twice: plain-secret-value');
    expect(io.text().err).toBe('got [redacted key] twice: [redacted key]\n');
  });

  it('displayKey shows the public id only', () => {
    expect(displayKey(KEY)).toBe('tts_0a1b2c3d');
    expect(displayKey('nonsense')).toBe('[redacted key]');
  });
});
