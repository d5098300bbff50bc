import { afterAll, expect, it, vi } from 'vitest';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
afterAll(() => sb?.close());

it('journals a word-timings download without reading its body (a JSON file of up to 12 MB is a download, not an answer)', async () => {
  sb = await createSandbox({ baseUrl: 'http://sandbox.test', voicesUrl: 'http://voices.test', env: {} });
  const posted = await sb.app.request('/v1/agent-tts', {
    method: 'POST',
    headers: { Authorization: `Bearer ${sb.keys.active_pro}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'Words timed. sandbox:inline', timestamps: 'word' }),
  });
  const job = (await posted.json()) as { status: string; timings: { json_url: string } };
  expect(job.status).toBe('completed');
  const url = new URL(job.timings.json_url);
  const clones = vi.spyOn(Response.prototype, 'clone');
  const res = await sb.app.request(`${url.pathname}${url.search}`);
  expect(clones).not.toHaveBeenCalled();
  clones.mockRestore();
  expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json']);
  expect(((await res.json()) as { words: { word: string }[] }).words.map((w) => w.word)).toEqual(['Words', 'timed', 'sandbox:inline']);
  const entry = sb.journal.list().at(-1)!;
  expect([entry.method, entry.path, entry.response.status]).toEqual(['GET', url.pathname, 200]);
});
