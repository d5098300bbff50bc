import { inject } from 'vitest';

/** Helpers of the two flows: HTTP on the shared sandbox. */
const BASE = inject('sandboxUrl');

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
export type Json = Record<string, any>;

export async function call(
  path: string,
  init: { method?: string; key?: string; body?: unknown } = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const headers: Record<string, string> = {};
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${BASE}${path}`, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

export const speak = (key: string, text: string) => call('/v1/agent-tts', { method: 'POST', key, body: { text } });

/** Waits (polling every 50 ms, up to 30 s) until `check` gives a value; the error says what never happened. */
export async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Waited 30 s for ${what}: the other file must run at the same time (fileParallelism, 2 workers).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The other flow's clock: a test clock that is not `own`, frozen or not as asked. */
export const otherClock = (own: string, frozen: boolean) =>
  until(`the other file's ${frozen ? 'frozen' : 'running'} test clock`, async () => {
    const { body } = await call('/sandbox/clocks');
    return (body.clocks as Json[]).find((c) => c.id !== own && c.id !== 'global' && c.frozen === frozen);
  });

/** How many requests the journal holds that match the filters. */
export const journalCount = async (query: Record<string, string>) => (await call(`/sandbox/requests/count?${new URLSearchParams(query)}`)).body.count as number;

export const publicPart = (key: string) => key.split('_').slice(0, 2).join('_');
