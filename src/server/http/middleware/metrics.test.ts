import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createOpsMetrics } from '../../metrics.js';
import type { AppEnv } from '../context.js';
import { httpMetrics } from './metrics.js';

/** The middleware alone, before a route with a path parameter and one that fails. */
function app() {
  const metrics = createOpsMetrics();
  const a = new OpenAPIHono<AppEnv>();
  a.use(httpMetrics(metrics));
  a.get('/jobs/:id', (c) => c.json({}));
  a.get('/fail', () => {
    throw new Error('boom');
  });
  a.onError((_error, c) => c.json({ failed: true }, 500));
  return { a, metrics };
}

describe('httpMetrics', () => {
  it('counts answers by method, route pattern and status, never by raw path; unknown paths as unmatched', async () => {
    const { a, metrics } = app();
    await a.request('/jobs/a');
    await a.request('/jobs/b');
    await a.request('/nope', { method: 'POST' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/agent_tts_http_requests_total\{method="GET",route="\/jobs\/:id",status="200"\} 2\n/);
    expect(text).toMatch(/agent_tts_http_requests_total\{method="POST",route="unmatched",status="404"\} 1\n/);
    expect(text).not.toContain('/jobs/a');
    expect(text).not.toContain('/nope');
  });

  it('counts a failure with the status it was answered with', async () => {
    const { a, metrics } = app();
    expect((await a.request('/fail')).status).toBe(500);
    expect(await metrics.registry.metrics()).toMatch(/agent_tts_http_requests_total\{method="GET",route="\/fail",status="500"\} 1\n/);
  });

  it('observes each answer’s duration under the same labels', async () => {
    const { a, metrics } = app();
    await a.request('/jobs/a');
    await a.request('/jobs/b');
    await a.request('/jobs/c');
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/agent_tts_http_request_duration_seconds_count\{method="GET",route="\/jobs\/:id",status="200"\} 3\n/);
    const sum = /agent_tts_http_request_duration_seconds_sum\{method="GET",route="\/jobs\/:id",status="200"\} ([\d.e-]+)\n/.exec(text);
    expect(Number(sum?.[1])).toBeGreaterThan(0);
  });
});
