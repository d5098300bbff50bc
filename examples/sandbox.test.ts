import { afterAll, beforeAll, expect, it } from 'vitest';
import { AgentTtsClient } from '@agent-tts/client';
import { startSandbox, type RunningSandbox } from '@agent-tts/sandbox';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
  // Sandbox time now moves only when the test moves it.
  await sandbox.clock.freeze();
});
afterAll(() => sandbox.stop());

// clock: the client's waits (polls, Retry-After) move the sandbox clock instead of passing in real time.
const clientFor = (apiKey: string) => new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey, clock: sandbox.clock.client });

it('polls an asynchronous job to completion, as often as it is told, without waiting for it', async () => {
  const client = clientFor(sandbox.keys.active_pro);
  const started = performance.now();
  // A job of a minute: the 202 says retry_after_seconds: 60, and the client's wait moves the sandbox
  // clock by that minute, which completes the job.
  const job = await client.speak({ text: 'Hello from the sandbox. sandbox:async=60' });
  expect(job.status).toBe('completed');
  expect(performance.now() - started).toBeLessThan(5_000); // a minute of sandbox time, no real one
  expect(sandbox.journal.list({ method: 'GET' }).flatMap((entry) => entry.flags)).toEqual([]);
});

it('gets 429 with Retry-After for a second POST in the minute, and is accepted once the clock has passed it', async () => {
  const post = (text: string) =>
    fetch(`${sandbox.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sandbox.keys.active_free}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text }),
    });
  expect((await post('One.')).status).toBe(200);
  const limited = await post('Two.');
  expect(limited.status).toBe(429);
  await sandbox.clock.advance(Number(limited.headers.get('Retry-After')));
  expect((await post('Two.')).status).toBe(200);
});

it('fetches a fresh audio URL when the one it holds has expired', async () => {
  const client = clientFor(sandbox.keys.active_ultimate);
  const job = await client.speak({ text: 'Play me later.' });
  await sandbox.clock.advance(3_601); // audio URLs are valid for an hour
  expect((await fetch(job.audio_url)).status).toBe(404);
  const audio = await client.openAudio(job); // asks for the job again, then downloads its new URL
  expect(audio.contentType).toBe('audio/mpeg');
  await audio.body.cancel();
});

it('is refused while the month’s minutes are used up, and accepted after the monthly reset', async () => {
  const client = clientFor(sandbox.keys.minutes_used_up);
  await expect(client.speak({ text: 'Hi.' })).rejects.toMatchObject({ code: 'USAGE_LIMIT_EXCEEDED' });
  const now = sandbox.clock.now();
  await sandbox.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)));
  const job = await client.speak({ text: 'Hi.' });
  expect(job.billing.monthly_minutes_used).toBeLessThan(1);
});
