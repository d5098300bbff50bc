import { describe, expect, it } from 'vitest';
import { usageExhaustedMessage } from './job-messages.js';

describe('job messages', () => {
  it('USAGE_LIMIT_EXCEEDED names the minutes used and included, as given', () => {
    expect(usageExhaustedMessage(12.34, 10)).toBe(
      'Monthly TTS minutes exhausted: 12.34 of 10 used, and this text needs more than remains. Upgrade the plan or wait for the reset.',
    );
  });
});
