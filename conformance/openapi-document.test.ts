import { describe, expect, it } from 'vitest';
import { errorExample } from '../src/contract/examples.js';
import type { Exchange } from './exchange.js';
import { OpenApiDocument } from './openapi-document.js';

const doc = OpenApiDocument.load();

function answer(method: string, path: string, status: number, body: unknown, headers: Record<string, string> = {}): Exchange {
  const text = JSON.stringify(body);
  return {
    seq: 1,
    owner: 'test',
    startedAt: new Date().toISOString(),
    ms: 1,
    request: { method, url: `http://127.0.0.1${path}`, headers: {} },
    response: {
      status,
      headers: { 'content-type': 'application/json', ...headers },
      contentType: 'application/json',
      bytes: Buffer.from(text),
      text,
      json: body,
    },
  };
}

describe('the OpenAPI document as a validator', () => {
  it('finds the operation of a method and path', () => {
    expect(doc.match('POST', '/v1/agent-tts').operation?.operationId).toBe('submitTts');
    expect(doc.match('GET', '/v1/audio/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.mp3').operation?.operationId).toBe('downloadAudio');
    expect(doc.match('PUT', '/v1/agent-tts')).toEqual({ operation: undefined, pathKnown: true });
    expect(doc.match('GET', '/v1/nope').pathKnown).toBe(false);
  });

  it('accepts a conforming answer', () => {
    const body = errorExample('NOT_FOUND', '0b6f9a52-1d1e-4c47-9a55-2f1f0b0d6a11');
    const headers = { 'x-request-id': body.meta.request_id, 'ratelimit-policy': '"get";q=30;w=60', ratelimit: '"get";r=29;t=60' };
    expect(doc.checkResponse(answer('GET', '/v1/agent-tts', 404, body, headers), '/v1/agent-tts')).toEqual([]);
  });

  it('flags an undeclared status, a body off its schema, a header off its pattern and a media type', () => {
    const body = errorExample('NOT_FOUND', '0b6f9a52-1d1e-4c47-9a55-2f1f0b0d6a11');
    expect(doc.checkResponse(answer('GET', '/v1/agent-tts', 418, body), '/v1/agent-tts')[0]).toMatch(/HTTP 418 is not a status the document declares/);
    const { api_version: _, ...meta } = body.meta;
    expect(doc.checkResponse(answer('GET', '/v1/agent-tts', 404, { ...body, meta }), '/v1/agent-tts').join()).toMatch(
      /meta must have required property 'api_version'/,
    );
    expect(doc.checkResponse(answer('GET', '/v1/agent-tts', 429, errorExample('RATE_LIMITED'), { 'retry-after': 'soon' }), '/v1/agent-tts').join()).toMatch(
      /header Retry-After: "soon"/,
    );
    const html = answer('GET', '/v1/agent-tts', 404, body);
    html.response!.contentType = 'text/html';
    expect(doc.checkResponse(html, '/v1/agent-tts').join()).toMatch(/Content-Type "text\/html" is not declared/);
  });

  it('requires the headers a document marks required', () => {
    const synthetic = new OpenApiDocument({
      paths: {
        '/v1/agent-tts': {
          get: {
            operationId: 'getTtsJob',
            responses: {
              '429': { headers: { 'Retry-After': { required: true, schema: { type: 'string' } } }, content: { 'application/json': { schema: {} } } },
            },
          },
        },
      },
    });
    const limited = answer('GET', '/v1/agent-tts', 429, {});
    expect(synthetic.checkResponse(limited, '/v1/agent-tts')).toEqual(['getTtsJob 429: required header Retry-After is missing']);
    limited.response!.headers['retry-after'] = '3';
    expect(synthetic.checkResponse(limited, '/v1/agent-tts')).toEqual([]);
  });
});
