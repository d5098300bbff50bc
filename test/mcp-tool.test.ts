import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '../src/client/client.js';
import { ERROR_TABLE } from '../src/contract/errors.js';
import { DEFAULT_MAX_CALL_MS, createTtsMcpServer } from '../src/mcp/server.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/index.js';
import { startWarmSandbox } from './helpers/sandbox.js';
import { ROOT } from './helpers/server.js';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { cueProblems, parseCaptions, withoutTimings } from './helpers/captions.js';
import { decodeMp3, longText } from './helpers/http.js';

const BIN = join(ROOT, 'src/client/bin/agent-tts.js');

interface ToolText {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Starts `agent-tts mcp` as an agent would, and connects the SDK's own client to it over stdio. */
async function connect(env: Record<string, string>, flags: string[] = []): Promise<{ client: Client; stderr: () => string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...flags],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  // The SDK's client on its default options: a request it has no answer to in 60 s fails (-32001).
  const client = new Client({ name: 'agent-tts-test', version: '0.0.0' });
  await client.connect(transport);
  // Listing the tools makes the client check every structured result against the tool's outputSchema.
  await client.listTools();
  return { client, stderr: () => stderr, close: () => client.close() };
}

function textOf(result: ToolText): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe('MCP server: text_to_speech', () => {
  let server: ListeningServer;
  let dir: string;
  beforeAll(async () => {
    server = await listen({ RATE_POST_LIMIT: '100' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-mcp-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const envFor = (key?: string) => ({
    AGENT_TTS_BASE_URL: server.baseUrl,
    XDG_CONFIG_HOME: join(dir, 'config'),
    ...(key ? { AGENT_TTS_API_KEY: key } : {}),
  });

  it('lists one tool with exactly the parameters and defaults of §4.9, and optional ones of its own', async () => {
    const session = await connect(envFor(server.fixtures.keys.active[0]));
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['text_to_speech']);
      const schema = tools[0]!.inputSchema as {
        type: string;
        properties: Record<string, { type: string; default?: unknown; minimum?: number; maximum?: number }>;
        required?: string[];
      };
      expect(schema.type).toBe('object');
      expect(Object.keys(schema.properties).sort()).toEqual(['job_id', 'language', 'speed', 'text', 'timestamps', 'voice', 'wait_for_rate_limit']);
      expect(schema.required).toEqual(['text']);
      expect(schema.properties.text).toMatchObject({ type: 'string' });
      expect(schema.properties.text!.default).toBeUndefined();
      expect(schema.properties.voice).toMatchObject({ type: 'string', default: 'st_m1' });
      expect(schema.properties.speed).toMatchObject({ type: 'number', default: 1.2, minimum: 0.5, maximum: 1.5 });
      expect(schema.properties.language).toMatchObject({ type: 'string', default: 'en' });
      expect(schema.properties.wait_for_rate_limit).toMatchObject({ type: 'boolean', default: false });
      expect(schema.properties.job_id).toMatchObject({ type: 'string' });
      expect(schema.properties.timestamps).toMatchObject({ type: 'string', enum: ['none', 'word'], default: 'none' });
      expect((schema.properties.timestamps as { description?: string }).description).toMatch(/vtt_url.*srt_url.*json_url/);
      expect(tools[0]!.description).toMatch(/timestamps: "word"/);
      expect(tools[0]!.description).toMatch(/RATE_LIMITED/);
      expect(tools[0]!.description).toMatch(/job_id/);
    } finally {
      await session.close();
    }
  });

  it('warns when the audio was spoken by another voice than the one asked for (an id the catalog does not list), and only then', async () => {
    const session = await connect(envFor(server.fixtures.keys.active[2]));
    try {
      const unlisted = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'A voice nobody has.', voice: 'af_nobody' } })) as ToolText;
      expect(unlisted.isError).toBeFalsy();
      expect(unlisted.structuredContent).toMatchObject({ voice: 'af_nicole' });
      expect(unlisted.structuredContent?.warning).toMatch(
        /^The audio was spoken by af_nicole, not af_nobody: the service's voice catalog does not list af_nobody/,
      );
      expect(textOf(unlisted)).toContain('"warning"');
      const listed = (await session.client.callTool({
        name: 'text_to_speech',
        arguments: { text: 'A voice that is listed.', voice: 'af_nicole' },
      })) as ToolText;
      expect(listed.structuredContent).toMatchObject({ voice: 'af_nicole' });
      expect(listed.structuredContent).not.toHaveProperty('warning');
    } finally {
      await session.close();
    }
  });

  it('returns an audio URL that serves the MP3, using the §4.9 defaults', async () => {
    const session = await connect(envFor(server.fixtures.keys.active[1]));
    try {
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'Hello from an agent.' } })) as ToolText;
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { audio_url: string; voice: string; speed: number; language?: string; job_id: string };
      expect(structured).toMatchObject({ voice: 'st_m1', speed: 1.2, language: 'en' });
      expect(textOf(result)).toContain(structured.audio_url);
      const response = await fetch(structured.audio_url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      const decoder = new MPEGDecoder();
      await decoder.ready;
      const decoded = decoder.decode(new Uint8Array(await response.arrayBuffer()));
      decoder.free();
      expect(decoded.samplesDecoded).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
  });

  it('refuses invalid arguments (speed outside 0.5–1.5, missing text) with the documented INVALID_REQUEST error', async () => {
    const session = await connect(envFor(server.fixtures.keys.active[2]));
    try {
      for (const [args, field] of [
        [{ text: 'x', speed: 3 }, 'speed'],
        [{ text: 'x', speed: 0.1 }, 'speed'],
        [{ speed: 1 }, 'text'],
        [{ text: 'x', voice: 7 }, 'voice'],
        [{ text: 'x', timestamps: 'sentence' }, 'timestamps'],
        [{ text: 'x', timestamps: true }, 'timestamps'],
      ] as const) {
        const result = (await session.client.callTool({ name: 'text_to_speech', arguments: args })) as ToolText;
        expect(result.isError, JSON.stringify(args)).toBe(true);
        const body = JSON.parse(textOf(result)) as { error: Record<string, unknown> };
        expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', suggested_action: ERROR_TABLE.INVALID_REQUEST.action, request_id: null });
        expect(body.error.message).toMatch(new RegExp(`^Invalid text_to_speech arguments: ${field}: `));
      }
    } finally {
      await session.close();
    }
  });

  it('with timestamps "word", returns the caption URLs beside the audio URL: WebVTT and SRT timed to the audio, and the word timings', async () => {
    const session = await connect(envFor(server.fixtures.keys.active[3]));
    try {
      const text = 'Captions for an agent. They follow the voice.';
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text, timestamps: 'word' } })) as ToolText;
      expect(result.isError, textOf(result)).toBeFalsy();
      const structured = result.structuredContent as { audio_url: string; duration_seconds: number; timings: Record<string, string>; message?: string };
      expect(Object.keys(structured.timings).sort()).toEqual(['json_url', 'srt_url', 'vtt_url']);
      expect(structured.message).toBeUndefined();
      expect(textOf(result)).toContain(structured.timings.vtt_url!);
      const vtt = await fetch(structured.timings.vtt_url!);
      expect(vtt.status).toBe(200);
      expect(cueProblems(parseCaptions(await vtt.text(), 'vtt'), text, structured.duration_seconds)).toEqual([]);
      const srt = await fetch(structured.timings.srt_url!);
      expect(cueProblems(parseCaptions(await srt.text(), 'srt'), text, structured.duration_seconds)).toEqual([]);
      const file = (await (await fetch(structured.timings.json_url!)).json()) as { words: Array<{ word: string }> };
      expect(file.words.map((w) => w.word)).toEqual(['Captions', 'for', 'an', 'agent', 'They', 'follow', 'the', 'voice']);

      // Not asked, none given.
      const plain = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'No captions.' } })) as ToolText;
      expect(plain.isError, textOf(plain)).toBeFalsy();
      expect(plain.structuredContent).not.toHaveProperty('timings');
      expect(plain.structuredContent).not.toHaveProperty('message');
    } finally {
      await session.close();
    }
  });

  it('with timestamps "word" against a service without word timings, returns the audio and says there are no captions', async () => {
    const baseOnly = await withoutTimings(server.baseUrl);
    const session = await connect({ ...envFor(server.fixtures.keys.active[4]), AGENT_TTS_BASE_URL: baseOnly.url });
    try {
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'Hello.', timestamps: 'word' } })) as ToolText;
      expect(result.isError, textOf(result)).toBeFalsy();
      const structured = result.structuredContent as Record<string, unknown>;
      expect(structured).toMatchObject({ status: 'completed', audio_url: expect.stringMatching(/^http/) });
      expect(structured).not.toHaveProperty('timings');
      expect(structured.message).toMatch(/^The audio is ready, but the service returned no word timings: it does not offer captions/);
      expect((await fetch(structured.audio_url as string)).status).toBe(200);
    } finally {
      await session.close();
      await baseOnly.close();
    }
  });

  it('returns the structured error (code, message, suggested action, request id), key redacted', async () => {
    const key = server.fixtures.keys.revoked!;
    const session = await connect(envFor(key));
    try {
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'Hello' } })) as ToolText;
      expect(result.isError).toBe(true);
      const body = JSON.parse(textOf(result)) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ code: 'INVALID_KEY', status: 401, suggested_action: ERROR_TABLE.INVALID_KEY.action });
      expect(body.error.message).toEqual(expect.any(String));
      expect(body.error.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(result.structuredContent).toEqual(body);
      expect(textOf(result) + session.stderr()).not.toContain(key.split('_')[2]);
    } finally {
      await session.close();
    }
  });

  it('answers with a structured error when no key is configured', async () => {
    const session = await connect(envFor(undefined));
    try {
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'Hello' } })) as ToolText;
      expect(result.isError).toBe(true);
      expect(JSON.parse(textOf(result))).toMatchObject({ error: { code: 'INVALID_KEY', request_id: null } });
      expect(JSON.parse(textOf(result)).error.message).toContain('AGENT_TTS_API_KEY');
    } finally {
      await session.close();
    }
  });
});

describe('MCP server on the 202 path', () => {
  let server: ListeningServer;
  let dir: string;
  beforeAll(async () => {
    server = await listen({ INLINE_WAIT_MS: '1' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-mcp-202-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('polls until completed, sending progress notifications, and returns the audio URL', async () => {
    const session = await connect({ AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!, XDG_CONFIG_HOME: join(dir, 'c') });
    try {
      const progress: number[] = [];
      const result = (await session.client.callTool(
        { name: 'text_to_speech', arguments: { text: 'An agent waits for this one.', voice: 'af_heart', speed: 1.0 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      )) as ToolText;
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { audio_url: string; voice: string; speed: number };
      expect(structured).toMatchObject({ voice: 'af_heart', speed: 1.0 });
      expect(progress.length).toBeGreaterThan(0);
      expect((await fetch(structured.audio_url)).status).toBe(200);
    } finally {
      await session.close();
    }
  });
});

/** Progress notifications as they came: when (ms since the call began), progress, total and message. */
type Notified = Array<{ at: number; progress: number; total?: number; message?: string }>;

const UUID = /^[0-9a-f-]{36}$/;
/** Every key of the tool's one error shape (src/mcp/README.md, "Errors"). */
const ERROR_KEYS = ['code', 'message', 'suggested_action', 'request_id', 'status', 'job_id', 'retry_after_seconds'];

/** The progress notifications keep MCP's rules and the tool's unit: percent of 100, rising every time. */
function expectPercentProgress(notified: Array<{ progress: number; total?: number }>) {
  expect(notified.length).toBeGreaterThan(0);
  for (const n of notified) {
    expect(n.total).toBe(100);
    expect(n.progress).toBeGreaterThanOrEqual(0);
    expect(n.progress).toBeLessThan(100);
  }
  const progress = notified.map((n) => n.progress);
  for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]!);
}

/** The longest silence of a call: between its start, each notification and its answer. */
function longestSilenceMs(notified: Notified, answeredAt: number): number {
  const times = [0, ...notified.map((n) => n.at), answeredAt];
  return Math.max(...times.slice(1).map((t, i) => t - times[i]!));
}

describe('MCP server against the sandbox (1 POST a minute per key): answers within the client timeout', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  beforeAll(async () => {
    sandbox = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-mcp-sandbox-'));
  });
  afterAll(async () => {
    await sandbox?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const envFor = (key: string) => ({ AGENT_TTS_BASE_URL: sandbox.baseUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'config') });

  it('keeps every call below the SDK client’s default request timeout', () => {
    expect(DEFAULT_MAX_CALL_MS).toBeLessThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MSEC - 10_000);
  });

  it('answers a second call in the minute at once with the structured RATE_LIMITED error, and sends no retry', async () => {
    const session = await connect(envFor(sandbox.keys.active_pro));
    try {
      const first = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'First. sandbox:inline' } })) as ToolText;
      expect(first.isError).toBeFalsy();
      expect(first.structuredContent).toMatchObject({ status: 'completed' });

      const began = Date.now();
      const second = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'Second. sandbox:inline' } })) as ToolText;
      expect(Date.now() - began).toBeLessThan(1_000);
      expect(second.isError).toBe(true);
      const error = (second.structuredContent as { error: Record<string, unknown> }).error;
      expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, suggested_action: ERROR_TABLE.RATE_LIMITED.action, job_id: null });
      expect(error.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(error.retry_after_seconds).toBeGreaterThan(50);
      expect(error.retry_after_seconds).toBeLessThanOrEqual(60);
      expect(error.message).toEqual(expect.any(String));
      expect(JSON.parse(textOf(second))).toEqual(second.structuredContent);

      // Asking to wait does not help when the wait would outlast the call: the same answer, at once.
      const began2 = Date.now();
      const third = (await session.client.callTool({
        name: 'text_to_speech',
        arguments: { text: 'Third. sandbox:inline', wait_for_rate_limit: true },
      })) as ToolText;
      expect(Date.now() - began2).toBeLessThan(1_000);
      expect(third.structuredContent).toMatchObject({ error: { code: 'RATE_LIMITED' } });

      const key = sandbox.keys.active_pro.slice(0, 12);
      expect(sandbox.journal.list({ method: 'POST', key }).map((e) => e.response.status)).toEqual([200, 429, 429]);
    } finally {
      await session.close();
    }
  });

  it('with wait_for_rate_limit, waits out a Retry-After that fits in the call, telling the client every few seconds', async () => {
    const session = await connect(envFor(sandbox.keys.active_ultimate));
    try {
      const first = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'First. sandbox:inline' } })) as ToolText;
      expect(first.isError).toBeFalsy();
      // 54 s of the key's minute pass on the sandbox clock: the next POST is told to wait about 6 s.
      await sandbox.clock.advance(54);
      const notified: Notified = [];
      const began = Date.now();
      const result = (await session.client.callTool(
        { name: 'text_to_speech', arguments: { text: 'Second. sandbox:inline', wait_for_rate_limit: true } },
        undefined,
        { onprogress: (p) => notified.push({ at: Date.now() - began, progress: p.progress, message: p.message }) },
      )) as ToolText;
      const answeredAt = Date.now() - began;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'completed', audio_url: expect.any(String) });
      expect(answeredAt).toBeGreaterThan(4_000);
      expect(longestSilenceMs(notified, answeredAt)).toBeLessThan(5_000);
      expect(notified.some((n) => /rate limited \(Retry-After \d+ s\): waiting \d+ s more/.test(n.message ?? ''))).toBe(true);
      const progress = notified.map((n) => n.progress);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(new Set(progress).size).toBe(progress.length);
    } finally {
      await session.close();
    }
  });

  it('waits for an asynchronous job with progress notifications at least every 5 s, and answers completed', async () => {
    const session = await connect(envFor(sandbox.keys.active_free));
    try {
      const notified: Notified = [];
      const began = Date.now();
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'A job of eight seconds. sandbox:async=8' } }, undefined, {
        onprogress: (p) => notified.push({ at: Date.now() - began, progress: p.progress, total: p.total, message: p.message }),
      })) as ToolText;
      const answeredAt = Date.now() - began;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'completed', audio_url: expect.any(String) });
      expect(answeredAt).toBeGreaterThan(7_000);
      // Percent of the job, from the service's progress_percent, estimated between polls (and said so).
      expectPercentProgress(notified);
      expect(notified.some((n) => /about [\d.]+% \(estimated; the service said [\d.]+% \d+ s ago\)/.test(n.message ?? ''))).toBe(true);
      expect(notified.at(-1)!.progress).toBeGreaterThan(50);
      // On a timer, not once per poll: more notifications than GETs, and never 5 s without one.
      const polls = sandbox.journal.count({ method: 'GET', key: sandbox.keys.active_free.slice(0, 12) });
      expect(notified.length).toBeGreaterThan(polls);
      expect(longestSilenceMs(notified, answeredAt)).toBeLessThan(5_000);
      expect(notified.some((n) => /^job [0-9a-f-]{36}: processing, (about )?[\d.]+%/.test(n.message ?? ''))).toBe(true);
      // The tool polled no sooner than it was told to.
      sandbox.journal.expectNoFlags({ key: sandbox.keys.active_free.slice(0, 12) });
    } finally {
      await session.close();
    }
  });

  it('answers sandbox:provider_error with TTS_PROVIDER_ERROR at once, in one error shape: one POST, its job id, status 502', async () => {
    const clock = await sandbox.createClock();
    const key = clock.keys.active_free;
    const session = await connect(envFor(key));
    try {
      const began = performance.now();
      const result = (await session.client.callTool({ name: 'text_to_speech', arguments: { text: 'Hello sandbox:provider_error' } })) as ToolText;
      const ms = performance.now() - began;
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: Record<string, unknown> }).error;
      expect(error).toMatchObject({
        code: 'TTS_PROVIDER_ERROR',
        status: 502,
        suggested_action: ERROR_TABLE.TTS_PROVIDER_ERROR.action,
        request_id: expect.stringMatching(UUID),
        job_id: expect.stringMatching(UUID),
        retry_after_seconds: null,
      });
      expect(error.details).toEqual({ job_id: error.job_id });
      expect(Object.keys(error).sort()).toEqual([...ERROR_KEYS, 'details'].sort());
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      // The real answer, not a RATE_LIMITED after a hidden resubmission.
      const posts = sandbox.journal.list({ method: 'POST', key: key.slice(0, 12) });
      expect(posts.map((e) => e.response.status)).toEqual([502]);
      expect(posts[0]!.response.job_id).toBe(error.job_id);
      expect(ms).toBeLessThan(10_000);
    } finally {
      await session.close();
      await clock.delete();
    }
  });

  it('answers sandbox:internal_error with INTERNAL_ERROR at once, status 500 and its job id, after one POST', async () => {
    const clock = await sandbox.createClock();
    const key = clock.keys.active_pro;
    const session = await connect(envFor(key));
    try {
      const result = (await session.client.callTool({
        name: 'text_to_speech',
        arguments: { text: 'Hello sandbox:internal_error sandbox:inline' },
      })) as ToolText;
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: Record<string, unknown> }).error;
      expect(error).toMatchObject({ code: 'INTERNAL_ERROR', status: 500, job_id: expect.stringMatching(UUID), retry_after_seconds: null });
      expect(sandbox.journal.list({ method: 'POST', key: key.slice(0, 12) }).map((e) => e.response.status)).toEqual([500]);
    } finally {
      await session.close();
      await clock.delete();
    }
  });

  it('answers a job that fails while polled with the status of its code (502), not the 200 of the GET, and no resubmission', async () => {
    const clock = await sandbox.createClock();
    const key = clock.keys.active_ultimate;
    const session = await connect(envFor(key));
    try {
      const result = (await session.client.callTool({
        name: 'text_to_speech',
        arguments: { text: 'Fails later. sandbox:async=2 sandbox:provider_error' },
      })) as ToolText;
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: Record<string, unknown> }).error;
      expect(error).toMatchObject({ code: 'TTS_PROVIDER_ERROR', status: 502, job_id: expect.stringMatching(UUID), retry_after_seconds: null });
      expect(Object.keys(error).sort()).toEqual(ERROR_KEYS.sort());
      expect(sandbox.journal.count({ method: 'POST', key: key.slice(0, 12) })).toBe(1);
      sandbox.journal.expectNoFlags({ key: key.slice(0, 12) });
    } finally {
      await session.close();
      await clock.delete();
    }
  });

  it('on its sandbox clock (--sandbox-clock), answers a 70 s job as processing at 45 s; the follow-up call waits as told, progress in percent', async () => {
    const clock = await sandbox.createClock();
    const key = clock.keys.active_pro;
    const session = await connect(envFor(key), ['--sandbox-clock']);
    try {
      const args = { text: 'A job of seventy seconds. sandbox:async=70' };
      const notified: Notified = [];
      const onprogress = (p: { progress: number; total?: number; message?: string }) =>
        notified.push({ at: 0, progress: p.progress, total: p.total, message: p.message });
      const first = (await session.client.callTool({ name: 'text_to_speech', arguments: args }, undefined, { onprogress })) as ToolText;
      expect(first.isError, textOf(first)).toBeFalsy();
      const processing = first.structuredContent as { status: string; job_id: string; retry_after_seconds: number; progress_percent?: number };
      expect(processing).toMatchObject({ status: 'processing', job_id: expect.stringMatching(UUID) });
      expectPercentProgress(notified);
      // 45 of 70 s: the progress shown at the end is the service's own figure moved on at its pace, near 64%.
      expect(notified.at(-1)!.progress).toBeGreaterThan(45);
      expect(notified.at(-1)!.progress).toBeLessThan(80);

      // Called again at once, as agents do: it waits until the job is due, then polls.
      const again: Notified = [];
      const second = (await session.client.callTool({ name: 'text_to_speech', arguments: { ...args, job_id: processing.job_id } }, undefined, {
        onprogress: (p) => again.push({ at: 0, progress: p.progress, total: p.total, message: p.message }),
      })) as ToolText;
      expect(second.isError, textOf(second)).toBeFalsy();
      expect(second.structuredContent).toMatchObject({ status: 'completed', job_id: processing.job_id });
      expectPercentProgress(again);
      expect(sandbox.journal.count({ method: 'POST', key: key.slice(0, 12) })).toBe(1);
      // No POLLED_TOO_SOON (nor any other mistake) on the key.
      sandbox.journal.expectNoFlags({ key: key.slice(0, 12) });
    } finally {
      await session.close();
      await clock.delete();
    }
  });

  it('answers a job that outlasts the call with its job_id and status_url before the client gives up; job_id then waits for it', async () => {
    // In process, with the call's limit cut to 4 s so that the test need not wait 45 s.
    const apiClient = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.minutes_almost_used });
    const mcp = createTtsMcpServer({ client: apiClient, redact: (t) => t, maxCallMs: 4_000 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'agent-tts-test', version: '0.0.0' });
    await client.connect(clientSide);
    await client.listTools();
    try {
      const args = { text: 'Short but slow. sandbox:async=5' };
      const began = Date.now();
      const first = (await client.callTool({ name: 'text_to_speech', arguments: args })) as ToolText;
      expect(Date.now() - began).toBeLessThan(5_000);
      expect(first.isError).toBeFalsy();
      const processing = first.structuredContent as Record<string, unknown>;
      expect(processing).toMatchObject({
        status: 'processing',
        job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        retry_after_seconds: expect.any(Number),
      });
      // The 202 said to poll after 5 s; 4 s of them have passed in the call.
      expect(processing.retry_after_seconds).toBeLessThanOrEqual(2);
      expect(processing.status_url).toBe(`${sandbox.baseUrl}/v1/agent-tts?id=${processing.job_id as string}`);
      expect(processing.message).toContain(`job_id "${processing.job_id as string}"`);
      expect(JSON.parse(textOf(first))).toEqual(processing);

      // Called again at once, as agents do: the tool itself waits until the job is due to be polled.
      const second = (await client.callTool({ name: 'text_to_speech', arguments: { ...args, job_id: processing.job_id } })) as ToolText;
      expect(second.isError, textOf(second)).toBeFalsy();
      expect(second.structuredContent).toMatchObject({ status: 'completed', job_id: processing.job_id, audio_url: expect.any(String) });
      // One job: the second call polled it and submitted nothing.
      expect(sandbox.journal.count({ method: 'POST', key: sandbox.keys.minutes_almost_used.slice(0, 12) })).toBe(1);
      sandbox.journal.expectNoFlags({ key: sandbox.keys.minutes_almost_used.slice(0, 12) });
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});

describe('MCP server: a job still processing answers with its stream_url (docs/api-rules.md#streaming-audio)', () => {
  let server: ListeningServer;
  beforeAll(async () => {
    // The reference server, embedded, real synthesis: every long job answers 202 at once.
    server = await listen({ RATE_POST_LIMIT: '100', INLINE_WAIT_MS: '0' });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('hands back the stream_url, which plays the job while it is made and ends with exactly the bytes of its audio_url', async () => {
    const apiClient = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.active[0] ?? '' });
    // The call's limit cut to 1.5 s, so that a 30,000-character job outlasts it.
    const mcp = createTtsMcpServer({ client: apiClient, redact: (t) => t, maxCallMs: 1_500 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'agent-tts-test', version: '0.0.0' });
    await client.connect(clientSide);
    // Listed, so that the client checks the result against the tool's outputSchema.
    const { tools } = await client.listTools();
    const [tool] = tools;
    if (!tool) throw new Error('no tool listed');
    expect((tool.outputSchema as { properties: Record<string, { description?: string }> }).properties.stream_url?.description).toMatch(/as it is made/);
    expect(tool.description).toMatch(/stream_url/);
    try {
      const args = { text: longText(400).slice(0, 30_000) };
      const first = (await client.callTool({ name: 'text_to_speech', arguments: args })) as ToolText;
      expect(first.isError, textOf(first)).toBeFalsy();
      const processing = first.structuredContent as { status: string; job_id: string; stream_url?: string; message: string };
      expect(processing).toMatchObject({ status: 'processing', job_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(processing.stream_url).toMatch(new RegExp(`^${server.baseUrl}/v1/stream/${processing.job_id}\\.mp3\\?expires=\\d+&sig=`));
      expect(processing.message).toMatch(/stream_url plays the audio made so far/);
      expect(JSON.parse(textOf(first))).toEqual(processing);

      // A player given the URL at once: no key, audio/mpeg, the first bytes decode while the job still runs.
      const res = await fetch(processing.stream_url ?? '');
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'audio/mpeg']);
      const reader = (res.body ?? new ReadableStream<Uint8Array>()).getReader();
      const chunks: Uint8Array[] = [];
      let statusAtFirstBytes: unknown;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (chunks.length === 0) statusAtFirstBytes = (await apiClient.getJob(processing.job_id)).status;
        chunks.push(value);
      }
      expect(statusAtFirstBytes).toBe('processing');
      const streamed = Buffer.concat(chunks);

      // The stream has ended: the job is done; the follow-up call (each as short as the first) answers completed.
      let second: ToolText | undefined;
      for (let calls = 0; calls < 20 && (second?.structuredContent?.status ?? 'processing') === 'processing'; calls++) {
        second = (await client.callTool({ name: 'text_to_speech', arguments: { ...args, job_id: processing.job_id } })) as ToolText;
        expect(second.isError, textOf(second)).toBeFalsy();
      }
      const completed = second?.structuredContent as { status: string; audio_url: string };
      expect(completed.status).toBe('completed');
      // Only a processing answer carries it.
      expect(completed).not.toHaveProperty('stream_url');
      const file = Buffer.from(await (await fetch(completed.audio_url)).arrayBuffer());
      expect(streamed.equals(file)).toBe(true);
      expect((await decodeMp3(streamed)).seconds).toBeGreaterThan(60);
    } finally {
      await client.close();
      await mcp.close();
    }
  }, 120_000);
});

describe('MCP server on an injected clock (the sandbox’s): waits move the clock, progress keeps its pace on it', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startWarmSandbox();
  });
  afterAll(() => sandbox?.stop());

  /** The tool in process, its waits on the sandbox clock; the API client itself on real time. */
  async function connectInProcess(apiKey: string) {
    const apiClient = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey });
    const mcp = createTtsMcpServer({ client: apiClient, redact: (t) => t, clock: sandbox.clock.client });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'agent-tts-test', version: '0.0.0' });
    await client.connect(clientSide);
    await client.listTools();
    const close = async () => {
      await client.close();
      await mcp.close();
    };
    return { client, close };
  }

  /** Calls the tool, keeping each progress notification's progress, total, message and the call's seconds its message gives. */
  async function call(client: Client, args: Record<string, unknown>) {
    const notified: Array<{ progress: number; total?: number; message?: string; seconds: number }> = [];
    const sandboxBefore = sandbox.clock.now().getTime();
    const started = performance.now();
    const result = (await client.callTool({ name: 'text_to_speech', arguments: args }, undefined, {
      onprogress: (p) =>
        notified.push({ progress: p.progress, total: p.total, message: p.message, seconds: Number(/\((\d+) s elapsed\)$/.exec(p.message ?? '')?.[1]) }),
    })) as ToolText;
    return { result, notified, realMs: performance.now() - started, sandboxSeconds: (sandbox.clock.now().getTime() - sandboxBefore) / 1000 };
  }

  /** The longest stretch of the call's clock without a notification: from its start, between them, to its answer. */
  const longestSilenceSeconds = (notified: Array<{ seconds: number }>, endSeconds: number) => {
    const marks = [0, ...notified.map((n) => n.seconds), endSeconds];
    return Math.max(...marks.slice(1).map((m, i) => m - marks[i]!));
  };

  it('waits for a job of 20 s with no real wait, a notification at least every 5 s of the clock', async () => {
    const session = await connectInProcess(sandbox.keys.active_pro);
    try {
      const { result, notified, realMs, sandboxSeconds } = await call(session.client, { text: 'Twenty seconds. sandbox:async=20' });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'completed', audio_url: expect.any(String) });
      // 20 s of waiting passed on the sandbox clock; in real time, a small part of one of them.
      expect(sandboxSeconds).toBe(20);
      expect(realMs).toBeLessThan(10_000);
      expect(notified.length).toBeGreaterThanOrEqual(5);
      expect(longestSilenceSeconds(notified, sandboxSeconds)).toBeLessThan(5);
      expect(
        notified.some((n) =>
          /^job [0-9a-f-]{36}: processing, ([\d.]+%|about [\d.]+% \(estimated; the service said [\d.]+% \d+ s ago\)) \(\d+ s elapsed\)$/.test(n.message ?? ''),
        ),
      ).toBe(true);
      expectPercentProgress(notified);
      sandbox.journal.expectNoFlags({ key: sandbox.keys.active_pro.slice(0, 12) });
    } finally {
      await session.close();
    }
  });

  it('answers a job that outlasts the call after 45 s of the clock, then job_id waits out the rest on it', async () => {
    const session = await connectInProcess(sandbox.keys.active_ultimate);
    try {
      const args = { text: 'A minute. sandbox:async=60' };
      const first = await call(session.client, args);
      expect(first.result.isError, textOf(first.result)).toBeFalsy();
      const processing = first.result.structuredContent as Record<string, unknown>;
      expect(processing).toMatchObject({ status: 'processing', job_id: expect.stringMatching(/^[0-9a-f-]{36}$/), retry_after_seconds: 15 });
      expect(first.sandboxSeconds).toBe(DEFAULT_MAX_CALL_MS / 1000);
      expect(first.realMs).toBeLessThan(10_000);
      expect(longestSilenceSeconds(first.notified, first.sandboxSeconds)).toBeLessThan(5);

      const second = await call(session.client, { ...args, job_id: processing.job_id });
      expect(second.result.isError, textOf(second.result)).toBeFalsy();
      expect(second.result.structuredContent).toMatchObject({ status: 'completed', job_id: processing.job_id });
      expect(second.sandboxSeconds).toBe(15);
      expect(second.realMs).toBeLessThan(10_000);
      expect(longestSilenceSeconds(second.notified, second.sandboxSeconds)).toBeLessThan(5);
      expect(sandbox.journal.count({ method: 'POST', key: sandbox.keys.active_ultimate.slice(0, 12) })).toBe(1);
      sandbox.journal.expectNoFlags({ key: sandbox.keys.active_ultimate.slice(0, 12) });
    } finally {
      await session.close();
    }
  });

  it('with wait_for_rate_limit, sits out the Retry-After on the clock, telling the client while it waits', async () => {
    const session = await connectInProcess(sandbox.keys.active_free);
    try {
      const first = await call(session.client, { text: 'First. sandbox:inline' });
      expect(first.result.isError).toBeFalsy();
      await sandbox.clock.advance(40); // the next POST is told to wait about 20 s
      const second = await call(session.client, { text: 'Second. sandbox:inline', wait_for_rate_limit: true });
      expect(second.result.isError, textOf(second.result)).toBeFalsy();
      expect(second.sandboxSeconds).toBeGreaterThanOrEqual(20);
      expect(second.sandboxSeconds).toBeLessThan(22);
      expect(second.realMs).toBeLessThan(10_000);
      expect(longestSilenceSeconds(second.notified, second.sandboxSeconds)).toBeLessThan(5);
      expect(second.notified.some((n) => /rate limited \(Retry-After \d+ s\): waiting \d+ s more/.test(n.message ?? ''))).toBe(true);
      sandbox.journal.expectNoFlags({ key: sandbox.keys.active_free.slice(0, 12) });
    } finally {
      await session.close();
    }
  });
});
