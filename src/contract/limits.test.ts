import { describe, expect, it } from 'vitest';
import { redactKeys } from './limits.js';

describe('redactKeys', () => {
  const secret = 'a1'.repeat(24);
  const key = `tts_65b60eb7_${secret}`;

  it('shows a key only as tts_<public_id>, wherever it sits in the text', () => {
    expect(redactKeys(`Bearer ${key}`)).toBe('Bearer tts_65b60eb7');
    expect(redactKeys(`/v1/${key}`)).toBe('/v1/tts_65b60eb7');
    expect(redactKeys(`/v1/x_${key}`)).toBe('/v1/x_tts_65b60eb7');
    expect(redactKeys(`/footts_65b60eb7_${secret}bar`)).toBe('/footts_65b60eb7');
    expect(redactKeys(`${key},${key}`)).toBe('tts_65b60eb7,tts_65b60eb7');
  });

  it('leaves text without a key as it is', () => {
    expect(redactKeys('tts_ is the prefix; tts_65b60eb7 is a display key')).toBe('tts_ is the prefix; tts_65b60eb7 is a display key');
  });
});
