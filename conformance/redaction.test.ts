import { describe, expect, it } from 'vitest';
import { Redactor, displayKey } from './redaction.js';

const key = `tts_0a1b2c3d_${'e'.repeat(48)}`;

describe('redaction', () => {
  it('shows a key only as tts_<public_id>', () => {
    expect(displayKey(key)).toBe('tts_0a1b2c3d');
    const redactor = new Redactor([key]);
    expect(redactor.text(`{"authorization":"Bearer ${key}"}`)).toBe('{"authorization":"Bearer tts_0a1b2c3d"}');
  });

  it('also catches keys it was not told about, and mangled ones', () => {
    const redactor = new Redactor([]);
    const other = `tts_99998888_${'1'.repeat(48)}`;
    expect(redactor.text(`Token ${other}`)).toBe('Token tts_99998888');
    expect(redactor.text(`Bearer ${key.slice(0, -4)}`)).toBe('Bearer tts_0a1b2c3d');
    expect(redactor.text(`Bearer ${key}x`)).not.toContain('e'.repeat(48));
  });
});
