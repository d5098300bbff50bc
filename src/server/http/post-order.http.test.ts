import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, postJob } from '../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../test/helpers/in-process.js';

/** `{"text":"hi","x":[[[…]]]}` nested `levels` deep: 6 MB at 3 million levels. */
function depthBomb(levels: number): Buffer {
  return Buffer.concat([Buffer.from('{"text":"hi","x":'), Buffer.alloc(levels, '['), Buffer.alloc(levels, ']'), Buffer.from('}')]);
}

/** A body sent 64 KiB at a time, only as it is read, that counts what was read of it. */
function countedBody(bytes: Buffer): { body: ReadableStream<Uint8Array>; read: () => number } {
  let offset = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        const chunk = bytes.subarray(offset, offset + 64 * 1024);
        offset += chunk.length;
        controller.enqueue(new Uint8Array(chunk));
      },
    },
    { highWaterMark: 0 },
  );
  return { body, read: () => offset };
}

const BOMB = depthBomb(3_000_000);

describe('order of checks on POST (docs/api-rules.md#order-of-checks): nothing is read before the cheap refusals', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startInProcessHttp({ RATE_POST_LIMIT: '1', RATE_WINDOW_SECONDS: '600' }, { synth: 'instant' });
  });
  afterAll(async () => {
    await server.close();
  });

  const postBomb = (key: string, headers: Record<string, string> = {}) => {
    const counted = countedBody(BOMB);
    const answer = call(`${server.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: counted.body,
      duplex: 'half',
    } as RequestInit);
    return answer.then((res) => ({ res, read: counted.read() }));
  };

  it('refuses a 6 MB depth bomb on a key at its POST limit with 429, its body unread', async () => {
    const key = server.fixtures.keys.active[0]!;
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, { text: 'The one POST of the window.' })).status);
    const { res, read } = await postBomb(key);
    expectError(res, 429, 'RATE_LIMITED');
    expect(read).toBe(0);
    // Any body, malformed or not, is answered by the limit: it is not read.
    expectError(await postJob(server.baseUrl, key, '{"text": not json'), 429, 'RATE_LIMITED');
  });

  it('answers a replay with the original job, whatever the body, without reading it', async () => {
    const key = server.fixtures.keys.active[1]!;
    const first = await postJob(server.baseUrl, key, { text: 'Asked for once.' }, { 'idempotency-key': 'bomb-replay' });
    expect([200, 202]).toContain(first.status);
    // The key is at its POST limit now; a replay takes no place and is not refused by it.
    const { res, read } = await postBomb(key, { 'idempotency-key': 'bomb-replay' });
    expect([200, 202]).toContain(res.status);
    expect(res.body.job_id).toBe(first.body.job_id);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(read).toBe(0);
  });

  it('refuses a depth bomb on a fresh key with 400 naming the nesting limit, early, and takes no quota', async () => {
    const key = server.fixtures.keys.active[2]!;
    const { res, read } = await postBomb(key, { 'idempotency-key': 'bomb-fresh' });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/nests arrays or objects more than 64 levels deep/);
    // The counting stops at the first chunk that goes too deep: the rest is read and dropped from then on
    // (discardRest in json-body.ts), never kept or parsed. Embedded, the answer goes out before that drain
    // has pulled the whole 6 MB. On Redis the answer first gives the POST place and the Idempotency-Key
    // back (round trips to Redis), and the drain reaches the end of the body over loopback before it is
    // sent: what holds in both modes is that nothing past the 65th level is parsed or held.
    if (process.env.TEST_BACKEND !== 'redis') expect(read).toBeLessThan(BOMB.length);
    expect(res.headers.get('ratelimit')).toMatch(/^"post";r=1;/);
    // Its place and its Idempotency-Key are free again: the same key makes a new job.
    const next = await postJob(server.baseUrl, key, { text: 'Still allowed.' }, { 'idempotency-key': 'bomb-fresh' });
    expect([200, 202]).toContain(next.status);
    expect(next.headers.get('idempotent-replayed')).toBeNull();
  });

  it('accepts nesting up to the limit (unknown fields are ignored) and refuses one level more', async () => {
    const key = server.fixtures.keys.active[3]!;
    const nested = (levels: number) => `{"text":"Nested.","x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    // Inside strings, brackets do not count.
    const quoted = `{"text":"${'[{'.repeat(100)}","x":${'['.repeat(63)}${']'.repeat(63)}}`;
    expectError(await postJob(server.baseUrl, key, nested(65)), 400, 'INVALID_REQUEST');
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, quoted)).status);
    expectError(await postJob(server.baseUrl, key, nested(64)), 429, 'RATE_LIMITED');
  });

  it('reads the body before the monthly minutes: a bomb on an exhausted account is 400, a valid body 403', async () => {
    const key = server.fixtures.keys.usage_exhausted!;
    expectError((await postBomb(key)).res, 400, 'INVALID_REQUEST');
    expectError(await postJob(server.baseUrl, key, { text: 'One more.' }), 403, 'USAGE_LIMIT_EXCEEDED');
  });

  it('refuses a malformed Idempotency-Key before the replay, the limit and the body', async () => {
    const key = server.fixtures.keys.active[0]!;
    const { res, read } = await postBomb(key, { 'idempotency-key': 'k'.repeat(256) });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/Idempotency-Key|idempotency-key/i);
    expect(read).toBe(0);
  });
});
