import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from './index.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

/** A logger whose lines the test reads. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'error' }, stream), lines };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;

describe('sandbox: --validate-responses over a normal run', () => {
  let running: RunningSandbox | undefined;
  afterEach(() => running?.stop());

  it('checks every kind of answer to the API and the catalog, and finds nothing to flag or log', async () => {
    const { log, lines } = capturedLog();
    running = await startSandbox({ validateResponses: true, env: { RATE_POST_LIMIT: '100' }, log });
    const sb = running;
    const post = (key: string, text: unknown, headers: Record<string, string> = {}) =>
      fetch(`${sb.baseUrl}/v1/agent-tts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ text }),
      });
    const get = (key: string, id: string) => fetch(`${sb.baseUrl}/v1/agent-tts?id=${id}`, { headers: { Authorization: `Bearer ${key}` } });

    const inline = await post(sb.keys.active_pro, 'Hello. sandbox:inline', { 'Idempotency-Key': 'one' });
    expect(inline.status).toBe(200);
    const job = (await inline.json()) as Json;
    expect((await post(sb.keys.active_pro, 'Hello. sandbox:inline', { 'Idempotency-Key': 'one' })).headers.get('idempotent-replayed')).toBe('true');
    const audio = await fetch(job.audio_url);
    expect([audio.status, (await audio.arrayBuffer()).byteLength > 0]).toEqual([200, true]);
    const range = await fetch(job.audio_url, { headers: { Range: 'bytes=0-9' } });
    expect(range.status).toBe(206);
    await range.arrayBuffer();
    expect((await fetch(job.audio_url, { headers: { Range: 'bytes=999999999-' } })).status).toBe(416);
    const forged = `${sb.baseUrl}/v1/audio/${job.job_id}.mp3?expires=${Math.floor(Date.now() / 1000) + 600}&sig=${'A'.repeat(43)}`;
    expect((await fetch(forged)).status).toBe(404);

    const held = await post(sb.keys.active_pro, 'Later. sandbox:async=5');
    expect(held.status).toBe(202);
    const { job_id } = (await held.json()) as Json;
    expect((await get(sb.keys.active_pro, job_id)).status).toBe(200);
    await sb.clock.advance(5);
    expect(((await (await get(sb.keys.active_pro, job_id)).json()) as Json).status).toBe('completed');
    expect((await get(sb.keys.active_pro, crypto.randomUUID())).status).toBe(404);
    expect((await get(sb.keys.active_pro, 'not-a-uuid')).status).toBe(400);

    expect((await post(sb.keys.active_pro, 'Fail. sandbox:provider_error')).status).toBe(502);
    expect((await post(sb.keys.active_pro, 'Fail. sandbox:internal_error')).status).toBe(500);
    expect((await post(sb.keys.active_pro, '')).status).toBe(400);
    expect((await post(sb.keys.revoked, 'Hi.')).status).toBe(401);
    expect((await post(sb.keys.inactive_subscription, 'Hi.')).status).toBe(403);
    expect((await post(sb.keys.minutes_used_up, 'Hi.')).status).toBe(403);
    await post(sb.keys.active_free, 'One.');
    expect((await post(sb.keys.active_free, 'Two.')).status).toBe(200);
    const catalog = await fetch(`${sb.voicesUrl}/api/v1/voices`);
    expect(catalog.status).toBe(200);

    expect(sb.journal.flags().filter((f) => f.code === 'RESPONSE_VIOLATES_DOCUMENT')).toEqual([]);
    // The failures the magic inputs asked for are logged ('job failed'); no answer was.
    expect(lines.filter((line) => String(line.msg).startsWith('answer violates'))).toEqual([]);
    expect(lines.map((line) => line.msg)).toContain('job failed');
  }, 30_000);
});

describe('sandbox: an answer that breaks the document', () => {
  let core: SandboxCore | undefined;
  afterEach(() => core?.close());

  /**
   * A sandbox with validation on whose API app (or voice catalog, `part`) is wrapped to spoil its answers
   * (to GET /v1/agent-tts unless `which` says) as `spoil` says.
   */
  async function spoiled(
    spoil: (res: Response) => Promise<Response>,
    which = (request: Request) => request.method === 'GET' && new URL(request.url).pathname === '/v1/agent-tts',
    part: 'app' | 'voicesApp' = 'app',
  ) {
    const { log, lines } = capturedLog();
    core = await createSandbox({ baseUrl: 'http://sandbox.test', voicesUrl: 'http://voices.test', log, validateResponses: true });
    const app = core[part];
    const original = app.fetch;
    // The wrapped app: the validating listener calls app.fetch, which now breaks what the routes answered.
    app.fetch = async (request: Request) => {
      const res = await original(request);
      return which(request) ? spoil(res) : res;
    };
    return { core, lines };
  }
  const unknownJob = (core: SandboxCore) =>
    core.fetch(new Request(`http://sandbox.test/v1/agent-tts?id=${crypto.randomUUID()}`, { headers: { Authorization: `Bearer ${core.keys.active_pro}` } }));

  it('flags an answer whose body lost a required field, in the journal and the log, and sends it unchanged', async () => {
    const { core, lines } = await spoiled(async (res) => {
      const { meta: _meta, ...body } = (await res.json()) as Json;
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    });
    const res = await unknownJob(core);
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).meta).toBeUndefined(); // as spoiled: the answer is not repaired

    const [entry] = core.journal.list();
    expect(entry).toMatchObject({ method: 'GET', path: '/v1/agent-tts', response: { status: 404, error_code: 'NOT_FOUND' } });
    expect(entry!.flags).toEqual([
      {
        code: 'RESPONSE_VIOLATES_DOCUMENT',
        message:
          "The sandbox's answer (HTTP 404) breaks the OpenAPI document (openapi/openapi.json): getTtsJob 404: body must have required property 'meta'. " +
          'A defect of the sandbox, not of the client; the answer went out unchanged.',
      },
    ]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        method: 'GET',
        path: '/v1/agent-tts',
        status: 404,
        violations: ["getTtsJob 404: body must have required property 'meta'"],
        msg: "answer violates the OpenAPI document: GET /v1/agent-tts → 404: getTtsJob 404: body must have required property 'meta'",
      }),
    ]);
  });

  it('flags an answer without a header the document requires, and one with a status it does not declare', async () => {
    let status = 404;
    const { core } = await spoiled(async (res) => {
      const headers = new Headers(res.headers);
      headers.delete('x-request-id');
      return new Response(await res.text(), { status, headers });
    });
    await unknownJob(core);
    status = 409;
    await unknownJob(core);
    expect(core.journal.flagged().map((f) => [f.id, f.message.replace(/^.*openapi\.json\): (.*)\. A defect.*$/, '$1')])).toEqual([
      [1, 'getTtsJob 404: required header X-Request-Id is missing'],
      [2, 'getTtsJob: HTTP 409 is not a status the document declares (200, 400, 401, 403, 404, 429, 500)'],
    ]);
  });

  it('flags a broken answer of the voice catalog with an entry of its own', async () => {
    const { core, lines } = await spoiled(
      async (res) => new Response('{"voices": "none"}', { status: res.status, headers: res.headers }),
      () => true,
      'voicesApp',
    );
    expect((await core.voicesFetch(new Request('http://voices.test/api/v1/voices'))).status).toBe(200);
    expect(core.journal.flagged()).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/api/v1/voices',
        code: 'RESPONSE_VIOLATES_DOCUMENT',
        message: expect.stringContaining('listVoices 200: body'),
      }),
    ]);
    expect(lines).toHaveLength(1);
  });

  it('leaves alone answers the document does not describe (/sandbox/*, unknown paths), and checks nothing when off', async () => {
    const { core } = await spoiled(
      async () => new Response('not json', { status: 418 }),
      () => true,
    );
    expect((await core.fetch(new Request('http://sandbox.test/sandbox'))).status).toBe(418);
    expect((await core.fetch(new Request('http://sandbox.test/v2/nothing'))).status).toBe(418);
    expect((await core.fetch(new Request('http://sandbox.test/v1/agent-tts', { method: 'PUT' }))).status).toBe(418);
    // The same spoiled answer to an operation of the document is flagged.
    expect((await core.fetch(new Request(`http://sandbox.test/v1/agent-tts?id=${crypto.randomUUID()}`))).status).toBe(418);
    expect(core.journal.flagged().map((f) => `${f.method} ${f.path}`)).toEqual(['GET /v1/agent-tts']);

    const { log, lines } = capturedLog();
    const quiet = await createSandbox({ baseUrl: 'http://sandbox.test', voicesUrl: 'http://voices.test', log });
    try {
      const original = quiet.app.fetch;
      quiet.app.fetch = async (request: Request) => new Response('{}', { status: (await original(request)).status });
      expect((await quiet.fetch(new Request(`http://sandbox.test/v1/agent-tts?id=${crypto.randomUUID()}`))).status).toBe(401);
      expect(quiet.journal.flagged()).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('startSandbox: expectNoFlags names the broken answer as the sandbox’s, not the client’s', async () => {
    const { describeFlags } = await import('./index.js');
    expect(
      describeFlags([
        { id: 3, at: '2030-01-01T00:00:00.000Z', method: 'GET', path: '/v1/agent-tts', code: 'RESPONSE_VIOLATES_DOCUMENT', message: 'broken' },
        { id: 4, at: '2030-01-01T00:00:01.000Z', method: 'GET', path: '/v1/agent-tts', code: 'POLLED_TOO_SOON', message: 'soon' },
      ]),
    ).toBe(
      "The sandbox's journal shows a mistake of the client and an answer that breaks the OpenAPI document:\n" +
        '  #3 GET /v1/agent-tts (2030-01-01T00:00:00.000Z): RESPONSE_VIOLATES_DOCUMENT: broken\n' +
        '  #4 GET /v1/agent-tts (2030-01-01T00:00:01.000Z): POLLED_TOO_SOON: soon',
    );
  });
});
