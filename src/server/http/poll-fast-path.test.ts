// The poll answered ahead of the app (poll-fast-path.ts) against the app itself: two listeners on the
// same server, one with the fast path and one without, asked the same things by keys of the same kind.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessHttp, type SeededServer } from '../../../test/helpers/in-process.js';
import { createLogger } from '../log.js';
import { StoreUnavailableError } from '../ports/index.js';
import { closeServer, listen } from './listen.js';
import { pollFastPath } from './poll-fast-path.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> & { meta: { request_id: string }; error?: { code: string; message: string } };
  taken: boolean;
}

describe('the poll ahead of the app', () => {
  let server: SeededServer;
  const servers: Server[] = [];
  const lines: string[] = [];
  const taken: boolean[] = [];
  let fast = '';
  let app = '';
  let jobId = '';
  let owner = '';

  beforeAll(async () => {
    server = await startInProcessHttp({ RATE_GET_LIMIT: '6' }, { synth: 'instant' });
    const { app: api, services } = server.inProcess;
    const ahead = pollFastPath(services, createLogger('info', 'agent-tts', { destination: { write: (line) => void lines.push(line) } }));
    const fastServer = await listen(api.fetch, 0, '127.0.0.1', 'PORT', {
      ahead: (req, res, next) => {
        const took = ahead(req, res, next);
        taken.push(took);
        return took;
      },
    });
    const appServer = await listen(api.fetch, 0, '127.0.0.1', 'PORT');
    servers.push(fastServer, appServer);
    const portOf = (s: Server) => (s.address() as AddressInfo).port;
    fast = `http://127.0.0.1:${portOf(fastServer)}`;
    app = `http://127.0.0.1:${portOf(appServer)}`;
    ({ key: owner } = await server.inProcess.newKey());
    const posted = await server.inProcess.request('POST', '/v1/agent-tts', { key: owner, body: { text: 'Polled twice over.' } });
    expect(posted.status).toBe(200);
    jobId = ((await posted.json()) as { job_id: string }).job_id;
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map(closeServer));
    await server?.close();
  });

  async function ask(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const before = taken.length;
    const res = await fetch(`${base}${path}`, { headers });
    const body = (await res.json()) as Answer['body'];
    const all: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (name !== 'date') all[name] = value;
    });
    return { status: res.status, headers: all, body, taken: taken.slice(before).includes(true) };
  }

  /**
   * An answer without what differs from request to request: its id, the signature's expiry second, and
   * the bucket's count and reset (the two listeners' requests take turns in one bucket).
   */
  function comparable(answer: Answer) {
    const { 'x-request-id': requestId, ratelimit, 'retry-after': retryAfter, ...headers } = answer.headers;
    expect(requestId).toBe(answer.body.meta.request_id);
    const body = JSON.parse(JSON.stringify(answer.body).replace(/expires=\d+&sig=[^"]+/, 'expires=E&sig=S'));
    body.meta.request_id = 'ID';
    return { status: answer.status, headers, body, ratelimit: ratelimit?.replace(/r=\d+;t=\d+/, 'r=R;t=T'), retryAfter: retryAfter !== undefined };
  }

  it("answers the job's poll, its 404 and its 429 as the app does, with the same headers and bodies", async () => {
    // The job's key asks each thing of both listeners in turn (a GET limit of 6: the fourth pair is refused).
    const authorization = `Bearer ${owner}`;
    const asks = [
      `/v1/agent-tts?id=${jobId}`,
      `/v1/agent-tts?id=${jobId.toUpperCase()}`,
      `/v1/agent-tts?id=${crypto.randomUUID()}`,
      `/v1/agent-tts?id=${jobId}`,
    ];
    const answers: Answer[] = [];
    for (const path of asks) {
      const viaFast = await ask(fast, path, { authorization });
      const viaApp = await ask(app, path, { authorization });
      expect(viaFast.taken, path).toBe(true);
      expect(comparable(viaFast), path).toEqual(comparable(viaApp));
      answers.push(viaFast);
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 429]);
    expect(answers[0]?.body).toMatchObject({ success: true, status: 'completed', job_id: jobId });
    expect(answers[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      vary: 'Origin',
      'ratelimit-policy': '"get";q=6;w=60',
      ratelimit: '"get";r=5;t=60',
    });
    expect(answers[2]?.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(answers[3]?.headers['retry-after']).toMatch(/^\d+$/);
    expect(answers[3]?.headers.ratelimit).toMatch(/^"get";r=0;t=\d+$/);
  });

  it('writes the request log line and counts the answer under the route, as the app does', async () => {
    const { key } = await server.inProcess.newKey();
    const counted = async () =>
      (await server.inProcess.services.metrics.httpRequests.get()).values.find(
        (v) => v.labels.method === 'GET' && v.labels.route === '/v1/agent-tts' && v.labels.status === '404',
      )?.value ?? 0;
    const before = await counted();
    const answer = await ask(fast, `/v1/agent-tts?id=${jobId}`, { authorization: `Bearer ${key}` });
    expect(answer).toMatchObject({ status: 404, taken: true });
    expect(await counted()).toBe(before + 1);
    const line = JSON.parse(lines.at(-1) ?? '{}');
    expect(line).toMatchObject({ level: 30, msg: 'request', request_id: answer.body.meta.request_id, method: 'GET', path: '/v1/agent-tts', status: 404 });
    expect(line.key).toMatch(/^tts_/);
    expect(line.key.length).toBeLessThan(key.length);
    expect(line.ms).toBeGreaterThanOrEqual(0);
  });

  it('answers a store outage during authentication as the app does: 500 with the outage message, no bucket', async () => {
    const { auth } = server.inProcess.services;
    const authenticate = auth.authenticate;
    auth.authenticate = () => Promise.reject(new StoreUnavailableError('the store did not answer'));
    try {
      const path = `/v1/agent-tts?id=${jobId}`;
      const viaFast = await ask(fast, path, { authorization: `Bearer ${owner}` });
      const viaApp = await ask(app, path, { authorization: `Bearer ${owner}` });
      expect(viaFast).toMatchObject({ status: 500, taken: true, body: { success: false, error: { code: 'INTERNAL_ERROR' } } });
      expect(viaFast.body.error).toMatchObject({ message: expect.stringContaining('data store did not answer') });
      expect(viaFast.headers.ratelimit).toBeUndefined();
      expect(comparable(viaFast)).toEqual(comparable(viaApp));
    } finally {
      auth.authenticate = authenticate;
    }
  });

  it('leaves to the app what it does not answer exactly as the app would: refused keys, CORS, other shapes', async () => {
    const { key } = await server.inProcess.newKey();
    const auth = { authorization: `Bearer ${key}` };
    const refused = await ask(fast, `/v1/agent-tts?id=${jobId}`, { authorization: 'Bearer tts_nope_nope' });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.taken).toBe(true);
    const cors = await ask(fast, `/v1/agent-tts?id=${jobId}`, { ...auth, origin: 'https://app.example.com' });
    expect(cors).toMatchObject({ status: 404, taken: false });
    expect(cors.headers['access-control-allow-origin']).toBe('https://app.example.com');
    for (const path of [
      `/v1/agent-tts?id=not-a-uuid-but-36-characters-long-xx`,
      '/v1/agent-tts?id=',
      `/v1/agent-tts?id=${jobId}&x=1`,
      `/v1/agent-tts/?id=${jobId}`,
    ]) {
      const other = await ask(fast, path, auth);
      expect(other.taken, path).toBe(false);
      expect(other.status, path).not.toBe(200);
    }
  });
});
