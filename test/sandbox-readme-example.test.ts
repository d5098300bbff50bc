import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '../src/client/client.js';
import type { ProgressEvent } from '../src/client/types.js';
import type { RunningSandbox } from '../src/sandbox/index.js';
import { startWarmSandbox } from './helpers/sandbox.js';
import { ROOT } from './helpers/server.js';

const readme = () => readFileSync(join(ROOT, 'src/sandbox/README.md'), 'utf8');

/** src/sandbox/README.md's worked example is examples/sandbox.test.ts, word for word (that file runs with the tests). */
describe('src/sandbox/README.md: the sandbox example', () => {
  it('quotes examples/sandbox.test.ts exactly', () => {
    const quoted = /<!-- examples\/sandbox\.test\.ts -->\n```ts\n([\s\S]*?)```\n/.exec(readme())?.[1];
    expect(quoted).toBe(readFileSync(join(ROOT, 'examples/sandbox.test.ts'), 'utf8'));
  });

  it('gives its clients the sandbox’s client clock', () => {
    const example = readFileSync(join(ROOT, 'examples/sandbox.test.ts'), 'utf8');
    expect(example).toContain('new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey, clock: sandbox.clock.client })');
  });
});

/** What the example relies on: a client on `sandbox.clock.client` waits for a job on the sandbox clock, not in real time. */
describe('the example’s client clock', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startWarmSandbox();
  });
  afterAll(() => sandbox?.stop());

  it('completes a job of 5 s on the sandbox clock with well under a second of real time, polling as told', async () => {
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.active_pro, clock: sandbox.clock.client });
    const events: ProgressEvent[] = [];
    const sandboxStart = sandbox.clock.now().getTime();
    const started = performance.now();
    const job = await client.speak({ text: 'Hello from the sandbox. sandbox:async=5' }, { onProgress: (e) => events.push(e) });
    const realMs = performance.now() - started;
    expect(job.status).toBe('completed');
    expect(realMs).toBeLessThan(1_000);
    expect(sandbox.clock.now().getTime() - sandboxStart).toBe(5_000);
    expect(events.at(-1)).toMatchObject({ status: 'completed', elapsedMs: 5_000 });
    sandbox.journal.expectNoFlags({ key: sandbox.keys.active_pro.slice(0, 12) });
  });
});
