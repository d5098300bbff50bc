import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../src/contract/errors.js';
import { ROOT, startServer, type RunningServer } from './helpers/server.js';

const BIN = join(ROOT, 'bin/agent-tts.js');

interface ToolText {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Starts `agent-tts mcp` as an agent would, and connects the SDK's own client to it over stdio. */
async function connect(env: Record<string, string>): Promise<{ client: Client; stderr: () => string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'agent-tts-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

function textOf(result: ToolText): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe('MCP server: text_to_speech', () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    server = await startServer({ env: { RATE_POST_LIMIT: '100' } });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-mcp-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const envFor = (key?: string) => ({
    AGENT_TTS_BASE_URL: server.baseUrl,
    XDG_CONFIG_HOME: join(dir, 'config'),
    ...(key ? { AGENT_TTS_API_KEY: key } : {}),
  });

  it('lists one tool with exactly the parameters and defaults of §4.9', async () => {
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
      expect(Object.keys(schema.properties).sort()).toEqual(['language', 'speed', 'text', 'voice']);
      expect(schema.required).toEqual(['text']);
      expect(schema.properties.text).toMatchObject({ type: 'string' });
      expect(schema.properties.text!.default).toBeUndefined();
      expect(schema.properties.voice).toMatchObject({ type: 'string', default: 'st_m1' });
      expect(schema.properties.speed).toMatchObject({ type: 'number', default: 1.2, minimum: 0.5, maximum: 1.5 });
      expect(schema.properties.language).toMatchObject({ type: 'string', default: 'en' });
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
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    server = await startServer({ env: { INLINE_WAIT_MS: '1' } });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-mcp-202-'));
  });
  afterAll(async () => {
    await server?.stop();
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
