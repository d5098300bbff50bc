/** Word timings through the sandbox's HTTP API: the journal's view of the field (docs/api-rules.md#word-timings-and-captions). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
beforeEach(async () => {
  sb = await createSandbox({
    baseUrl: 'http://sandbox.test',
    voicesUrl: 'http://voices.test',
    env: { RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '100' },
    validateResponses: true,
  });
});
afterEach(() => sb?.close());

const post = (body: unknown, idempotencyKey?: string) =>
  sb.fetch(
    new Request('http://sandbox.test/v1/agent-tts', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${sb.keys.active_pro}`,
        'Content-Type': 'application/json',
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
    }),
  );

describe('sandbox: the journal compares submissions with timestamps as the API does', () => {
  it('takes timestamps "none" and no timestamps as the same body under one key, and "word" as a different one', async () => {
    const text = 'Hello from agent-tts. sandbox:inline';
    expect((await post({ text }, 'k-1')).status).toBe(200);
    expect((await post({ timestamps: 'none', text }, 'k-1')).status).toBe(200);
    expect((await post({ text, timestamps: 'word' }, 'k-1')).status).toBe(200);
    expect((await post({ text, timestamps: 'word' }, 'k-2')).status).toBe(200);
    expect((await post({ text }, 'k-2')).status).toBe(200);
    expect(sb.journal.list().map((e) => e.flags.map((f) => f.code))).toEqual([
      [],
      [],
      ['IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY'],
      [],
      ['IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY'],
    ]);
  });
});
