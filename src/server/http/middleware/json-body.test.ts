import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../context.js';
import { jsonBody } from './json-body.js';

const LIMIT = 32;

function app() {
  const a = new OpenAPIHono<AppEnv>();
  a.post('/', jsonBody(LIMIT), async (c) => c.json({ text: await c.req.text() }));
  a.onError((error, c) => c.json({ code: error instanceof ApiError ? error.code : 'other' }, 400));
  return a;
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  app().request('/', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, duplex: 'half' } as RequestInit);

const streamOf = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of [text.slice(0, 5), text.slice(5)]) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });

describe('jsonBody', () => {
  it('hands a body within the limit to the route, declared or streamed', async () => {
    const text = '{"text":"héllo"}';
    const declared = await post(text, { 'content-length': String(Buffer.byteLength(text)) });
    expect(await declared.json()).toEqual({ text });
    const streamed = await post(streamOf(text));
    expect(await streamed.json()).toEqual({ text });
  });

  it('refuses a body over the limit as TEXT_TOO_LONG: declared, streamed, or longer than it declares', async () => {
    const big = `{"text":"${'a'.repeat(LIMIT)}"}`;
    expect(await (await post(big, { 'content-length': String(big.length) })).json()).toEqual({ code: 'TEXT_TOO_LONG' });
    expect(await (await post(streamOf(big))).json()).toEqual({ code: 'TEXT_TOO_LONG' });
    expect(await (await post(big, { 'content-length': '10' })).json()).toEqual({ code: 'TEXT_TOO_LONG' });
  });

  it('refuses invalid UTF-8 and a wrong content type as INVALID_REQUEST', async () => {
    const bad = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect(await (await post(bad, { 'content-length': '3' })).json()).toEqual({ code: 'INVALID_REQUEST' });
    expect(await (await post('{}', { 'content-type': 'text/plain' })).json()).toEqual({ code: 'INVALID_REQUEST' });
  });
});
