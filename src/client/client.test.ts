import { describe, expect, it } from 'vitest';
import { AgentTtsClient } from './client.js';
import { AgentTtsError } from './errors.js';

const KEY = 'tts_0123abcd_0123456789abcdef0123456789abcdef0123456789abcdef';
const REQUEST_ID = '11111111-2222-4333-8444-555555555555';

/** A fetch that answers every request with the given status and this API's error body, and counts them. */
function answering(status: number, code: string, message: string) {
  const calls: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push(`${request.method} ${new URL(request.url).pathname}`);
    return new Response(JSON.stringify({ success: false, error: { code, message }, meta: { request_id: REQUEST_ID, api_version: '2026-04' } }), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

describe('AgentTtsClient options', () => {
  it('refuses a baseUrl that is not an absolute http(s) URL at construction', () => {
    for (const baseUrl of ['notaurl', '/v1', 'ftp://tts.example.com', '']) {
      expect(() => new AgentTtsClient({ baseUrl, apiKey: KEY }), baseUrl).toThrow(TypeError);
    }
    expect(() => new AgentTtsClient({ baseUrl: 'notaurl', apiKey: KEY })).toThrow('baseUrl must be an absolute http:// or https:// URL, got "notaurl"');
  });

  it('refuses a voicesUrl that is not an absolute http(s) URL', () => {
    expect(() => new AgentTtsClient({ voicesUrl: 'voices.example.com' })).toThrow(/^voicesUrl must be an absolute http/);
  });

  it('accepts http and https URLs, a path prefix kept and trailing slashes dropped', () => {
    expect(new AgentTtsClient({ baseUrl: 'https://tts.example.com/prefix/' }).baseUrl).toBe('https://tts.example.com/prefix');
    expect(new AgentTtsClient({ voicesUrl: 'http://127.0.0.1:8081' }).voicesUrl).toBe('http://127.0.0.1:8081');
    expect(new AgentTtsClient().baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('refuses a headers option that names a header the client sets itself, on the client and on a call', async () => {
    expect(() => new AgentTtsClient({ headers: { authorization: 'Bearer x' } })).toThrow(
      'headers may not set authorization: the client sets it (apiKey for Authorization, idempotencyKey for Idempotency-Key)',
    );
    const { fetch, calls } = answering(500, 'INTERNAL_ERROR', 'Internal server error. Retry with backoff.');
    const client = new AgentTtsClient({ apiKey: KEY, fetch, headers: { Prefer: 'code=500' } });
    await expect(client.submit({ text: 'Hi' }, { headers: { 'Idempotency-Key': 'mine' } })).rejects.toThrow(/^headers may not set Idempotency-Key/);
    expect(calls).toEqual([]);
  });
});

describe('a 404 where every deployment answers', () => {
  it('on submit is INVALID_RESPONSE naming the URL, not NOT_FOUND, and is not retried', async () => {
    const server = answering(404, 'NOT_FOUND', 'No route POST /v1/agent-tts.');
    const client = new AgentTtsClient({ baseUrl: 'http://127.0.0.1:8081/', apiKey: KEY, fetch: server.fetch });
    const error = (await client.submit({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.message).toBe('http://127.0.0.1:8081 does not serve the agent-tts API (404 on POST /v1/agent-tts)');
    expect(error.status).toBe(404);
    expect(error.requestId).toBe(REQUEST_ID);
    expect(error.suggestedAction).not.toMatch(/job id/);
    expect(server.calls).toEqual(['POST /v1/agent-tts']);
  });

  it('on the voice catalog is INVALID_RESPONSE naming the catalog URL', async () => {
    const server = answering(404, 'NOT_FOUND', 'No route GET /api/v1/voices.');
    const client = new AgentTtsClient({ voicesUrl: 'http://127.0.0.1:8080', fetch: server.fetch });
    const error = (await client.listVoices().catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.message).toBe('http://127.0.0.1:8080 does not serve the agent-tts voice catalog (404 on GET /api/v1/voices)');
  });

  it('on the GET of a job id is still NOT_FOUND: that job does not exist', async () => {
    const server = answering(404, 'NOT_FOUND', 'Job not found.');
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch });
    const error = (await client.getJob('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('NOT_FOUND');
    expect(error.suggestedAction).toBe('Check the job id.');
  });
});
