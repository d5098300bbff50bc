import { createRoute } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { MALFORMED_JSON_MESSAGE } from '@agent-tts/contract/messages.js';
import { TtsRequest } from '@agent-tts/contract/request-schemas.js';
import { createLogger } from '../log.js';
import { createApp } from './create-app.js';
import { fromHttpException } from './validation.js';

const CATALOG = { ids: ['af_heart', 'af_bella', 'st_m1'], url: 'http://voices.example.com/api/v1/voices' };

/** The validation hook as every contract route meets it: a route bound with app.openapi() in the app shell. */
function app() {
  const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
  a.use(async (c, next) => {
    c.set('voiceCatalog', CATALOG);
    await next();
  });
  const route = createRoute({
    method: 'post',
    path: '/speak',
    request: { body: { content: { 'application/json': { schema: TtsRequest } }, required: true } },
    responses: { 200: { description: 'ok' } },
  });
  a.openapi(route, (c) => c.json(c.req.valid('json'), 200));
  return a;
}

const post = (body: unknown) =>
  app().request('/speak', { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

async function refusal(res: Response) {
  expect(res.status).toBe(400);
  return (await res.json()).error as { code: string; message: string };
}

describe('validationHook', () => {
  it('lets a valid body through', async () => {
    const res = await post({ text: 'hi', speed: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: 'hi', speed: 1 });
  });

  it('refuses a text over the limit as TEXT_TOO_LONG, counted in code points, saying what to do', async () => {
    expect((await post({ text: '😀'.repeat(LIMITS.textMaxChars) })).status).toBe(200);
    const error = await refusal(await post({ text: '😀'.repeat(LIMITS.textMaxChars + 1) }));
    expect(error).toEqual({
      code: 'TEXT_TOO_LONG',
      message: `text has ${LIMITS.textMaxChars + 1} characters; the limit is ${LIMITS.textMaxChars}. Split the text into smaller chunks.`,
    });
  });

  it('refuses everything else as INVALID_REQUEST with a message for people', async () => {
    expect(await refusal(await post({ text: 'hi', speed: 2 }))).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/^speed 2 is out of range: send /),
    });
    expect((await refusal(await post({}))).message).toMatch(/^text is missing: send the text to speak as /);
    expect((await refusal(await post({ text: '   ' }))).message).toMatch(/^text is empty or only white space/);
  });

  it('names the deployment’s catalog (put in the context by the route) for a voice id it refuses', async () => {
    const error = await refusal(await post({ text: 'hi', voice: 'Heart!' }));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^voice "Heart!" is not a voice id: /);
    expect(error.message).toContain(CATALOG.url);
  });

  it('refuses malformed JSON in the API’s words', async () => {
    expect(await refusal(await post('{"text": "unterminated'))).toEqual({ code: 'INVALID_REQUEST', message: MALFORMED_JSON_MESSAGE });
  });
});

describe('fromHttpException', () => {
  it('turns Hono’s refusals into INVALID_REQUEST', () => {
    const cases: Array<[HTTPException, string]> = [
      [new HTTPException(415, { message: 'nope' }), 'Content-Type must be application/json.'],
      [new HTTPException(400, { message: 'Malformed JSON in request body' }), MALFORMED_JSON_MESSAGE],
      [new HTTPException(400, { message: 'Bad header' }), 'Bad header'],
      [new HTTPException(400), 'The request is malformed.'],
    ];
    for (const [exception, message] of cases) {
      const error = fromHttpException(exception);
      expect([error.code, error.status, error.message]).toEqual(['INVALID_REQUEST', 400, message]);
    }
  });
});
