import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../adapters/sqlite-store.js';
import { usageMonth } from '../domain/usage.js';
import { longText, sleep } from '../../../test/helpers/http.js';
import { listen, type ListeningServer } from '../../../test/helpers/in-process.js';

const BODY_CUT_SHORT = 'client closed the connection before the body was complete';
const ANSWER_UNWANTED = 'client closed the connection before its answer was ready';

type LogRecord = { level: number; msg: string; request_id?: string; status?: number; job_id?: string; method?: string; path?: string };

/**
 * Sends a POST's head and the first part of its body, then closes the socket (a client that crashes,
 * loses its network or is killed mid-upload). Resolves once the socket is closed.
 */
function postThenClose(baseUrl: string, head: Record<string, string>, bodyPart: string, closeAfterMs = 100): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  const lines = Object.entries({ Host: `${hostname}:${port}`, ...head }).map(([name, value]) => `${name}: ${value}\r\n`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST /v1/agent-tts HTTP/1.1\r\n${lines.join('')}\r\n${bodyPart}`, () => {
        setTimeout(() => socket.destroy(), closeAfterMs);
      });
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

describe('a client that goes away is not a server error', () => {
  let server: ListeningServer;
  let key: string;
  let accountId: string;

  /** The server's output as log records; a line that is not JSON (raw stderr) fails the test. */
  const records = (): LogRecord[] =>
    server
      .logs()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as LogRecord;
        } catch {
          throw new Error(`the server wrote a line outside the JSON log: ${line}`);
        }
      });

  /** The counter of answers to POST /v1/agent-tts, by status. */
  async function postCounts(): Promise<Map<string, number>> {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const counts = new Map<string, number>();
    for (const m of text.matchAll(/^agent_tts_http_requests_total\{method="POST",route="\/v1\/agent-tts",status="(\d+)"\} (\d+)$/gm)) {
      counts.set(m[1]!, Number(m[2]));
    }
    return counts;
  }

  /**
   * Waits (20 s at most) until the metrics count `count` answers 499 to POST and the log, from line
   * `from` on, has the access line of a 499 (log lines leave asynchronously, after the count).
   */
  async function until499(count: number, from: number): Promise<Map<string, number>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const counts = await postCounts();
      const logged = records()
        .slice(from)
        .some((r) => r.msg === 'request' && r.status === 499);
      if (((counts.get('499') ?? 0) >= count && logged) || Date.now() > deadline) return counts;
      await sleep(100);
    }
  }

  beforeAll(async () => {
    // The store is read directly below to prove nothing was made: SQLite.
    server = await listen({ INLINE_WAIT_MS: '60000' }, { backend: 'embedded' });
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'goes away', '--plan', 'pro', '--json'])).stdout);
    accountId = account.id;
    key = (await server.admin(['key', 'create', '--account', accountId])).stdout.trim();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The account's jobs and this month's usage, read from the server's own database. */
  async function accountState(): Promise<{ jobs: string[]; usedCentiminutes: number }> {
    const store = new SqliteStore(join(server.dataDir, 'agent-tts.sqlite'));
    try {
      const jobs = (await store.listRecentJobs(accountId, 100)).map((j) => j.id);
      const { usedCentiminutes } = await store.getUsage(accountId, usageMonth(Date.now()));
      return { jobs, usedCentiminutes };
    } finally {
      await store.close();
    }
  }

  const headers = () => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });

  for (const [framing, head, bodyPart] of [
    ['Content-Length: 100000, 10 bytes sent', { 'Content-Length': '100000' }, '{"text":"a'],
    ['chunked, cut inside a chunk', { 'Transfer-Encoding': 'chunked' }, '64\r\n{"text":"a'],
  ] as const) {
    it(`${framing}: counted as 499, never 5xx; one info line; no job and no charge`, async () => {
      const before = await postCounts();
      const linesBefore = records().length;

      await postThenClose(server.baseUrl, { ...headers(), ...head }, bodyPart);
      const after = await until499((before.get('499') ?? 0) + 1, linesBefore);

      expect(after.get('499') ?? 0, `POST counts: ${JSON.stringify([...after])}`).toBe((before.get('499') ?? 0) + 1);
      expect([...after.keys()].filter((status) => status.startsWith('5'))).toEqual([]);

      const lines = records().slice(linesBefore);
      expect(lines.filter((r) => r.msg === 'unhandled error')).toEqual([]);
      expect(lines.filter((r) => r.level >= 50)).toEqual([]);
      const told = lines.filter((r) => r.msg === BODY_CUT_SHORT);
      expect(told).toHaveLength(1);
      expect([30, 40]).toContain(told[0]!.level);
      expect(told[0]).toMatchObject({ method: 'POST', path: '/v1/agent-tts' });
      const access = lines.filter((r) => r.msg === 'request' && r.request_id === told[0]!.request_id);
      expect(access).toHaveLength(1);
      expect(access[0]!.status).toBe(499);

      expect(await accountState()).toEqual({ jobs: [], usedCentiminutes: 0 });
    });
  }

  it('a client gone while its POST waits for the inline answer: 499 and one info line naming the job, which goes on', async () => {
    const before = await postCounts();
    const linesBefore = records().length;
    // Long enough that the native engine, too, is still speaking when the client goes half a second in.
    const body = JSON.stringify({ text: longText(200) });
    // The whole body, then the connection closes while the server waits for synthesis.
    await postThenClose(server.baseUrl, { ...headers(), 'Content-Length': String(Buffer.byteLength(body)) }, body, 500);
    const after = await until499((before.get('499') ?? 0) + 1, linesBefore);

    expect(after.get('499') ?? 0, `POST counts: ${JSON.stringify([...after])}`).toBe((before.get('499') ?? 0) + 1);
    expect([...after.keys()].filter((status) => status.startsWith('5'))).toEqual([]);
    const lines = records().slice(linesBefore);
    expect(lines.filter((r) => r.level >= 50)).toEqual([]);
    const told = lines.filter((r) => r.msg === ANSWER_UNWANTED);
    expect(told).toHaveLength(1);
    expect([30, 40]).toContain(told[0]!.level);
    // The request was complete: its job was made and is charged like any other.
    const state = await accountState();
    expect(state.jobs).toEqual([told[0]!.job_id]);
    expect(state.usedCentiminutes).toBeGreaterThan(0);
  });
});
