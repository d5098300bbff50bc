import { afterEach, describe, expect, it } from 'vitest';
import { AgentTtsClient } from './client.js';
import { AgentTtsError } from './errors.js';

const KEY = `tts_00000000_${'0'.repeat(48)}`;
const page = globalThis as { document?: unknown; location?: unknown };

/**
 * In a browser a fetch the browser refuses under CORS rejects with a bare TypeError, as one that
 * reaches nothing does: the message names both, the page's origin and the server's CORS settings. Node
 * has no CORS, so the page is what the client sees of one (`document`, `location`), and the failure is
 * a real fetch TypeError that is not a refused connection (port 9, which fetch refuses to use).
 */
describe('a failed fetch in a browser', () => {
  afterEach(() => {
    delete page.document;
    delete page.location;
  });

  it('reads with the CORS hint: the page origin must be allowed by the server’s CORS settings', async () => {
    page.document = {};
    page.location = { origin: 'https://app.example.org' };
    const client = new AgentTtsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY, retry: { maxAttempts: 1 } });
    const error = (await client.submit({ text: 'Hi' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.message).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:9\/v1\/agent-tts: fetch failed/);
    expect(error.message).toContain(
      '(in a browser this is also how a CORS refusal looks: the service must allow the origin https://app.example.org in its CORS settings, ' +
        'CORS_ORIGINS or CORS_PREVIEW_PATTERN on the reference server; the browser console says which)',
    );
  });

  it('is not given outside a browser', async () => {
    const client = new AgentTtsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY, retry: { maxAttempts: 1 } });
    const error = (await client.submit({ text: 'Hi' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.message).not.toContain('CORS');
  });
});
