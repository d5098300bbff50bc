import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { OpsMetrics } from '../../metrics.js';
import type { AppEnv } from '../context.js';

/**
 * Counts an answer under its method, route pattern and status, `started` being process.hrtime.bigint()
 * at its start. The labelled children are looked up once per method, route and status and then reused,
 * so a request costs an increment and an observation, not a label object and its hashing.
 */
export function requestRecorder(metrics: OpsMetrics): (method: string, route: string, status: number, started: bigint) => void {
  type Children = { count: { inc(): void }; duration: { observe(value: number): void } };
  const children = new Map<string, Children>();
  return (method, route, status, started) => {
    const name = `${method} ${status} ${route}`;
    let child = children.get(name);
    if (!child) {
      const labels = { method, route, status: String(status) };
      child = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      // Routes are patterns and methods a handful, but a client can send any method name.
      if (children.size < 1000) children.set(name, child);
    }
    child.count.inc();
    child.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
  };
}

/** Counts every answer by its route pattern (never the raw path: ids would explode the label space). */
export function httpMetrics(metrics: OpsMetrics): MiddlewareHandler<AppEnv> {
  const record = requestRecorder(metrics);
  return async (c, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const pattern = routePath(c, -1);
      record(c.req.method, pattern === '*' || pattern === '/*' || pattern === '' ? 'unmatched' : pattern, c.res.status, started);
    }
  };
}
